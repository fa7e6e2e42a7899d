package fleet

import (
	"fmt"
	"strings"
)

// DefaultPrefix begins every subject the fleet uses, unless an agent and its
// clients are given another (Options.BrokerPrefix, ?prefix= in a URL).
const DefaultPrefix = "ecsinspect"

// Subjects, for prefix P and instance I (PROTOCOL.md, "Over NATS"):
//
//	P.announce            every agent's Announce, every AnnounceEvery and when it closes
//	P.discover            a request every agent answers with its Announce
//	P.i.I.ping            a request instance I answers with its Announce
//	P.i.I.s.S.up          session S's bytes from the client to instance I
//	P.i.I.s.S.down        session S's bytes from instance I to the client

// AnnounceSubject is where agents publish their Announce.
func AnnounceSubject(prefix string) string { return prefix + ".announce" }

// DiscoverSubject is where a client asks every agent for its Announce.
func DiscoverSubject(prefix string) string { return prefix + ".discover" }

// PingSubject is where a client asks one instance for its Announce.
func PingSubject(prefix, instance string) string { return prefix + ".i." + instance + ".ping" }

// UpSubject carries session's bytes from the client to the instance.
func UpSubject(prefix, instance, session string) string {
	return prefix + ".i." + instance + ".s." + session + ".up"
}

// DownSubject carries session's bytes from the instance to the client.
func DownSubject(prefix, instance, session string) string {
	return prefix + ".i." + instance + ".s." + session + ".down"
}

// maxName bounds instance names and prefixes.
const maxName = 64

// CheckName reports whether s can name an instance or be a prefix's part:
// 1 to 64 of A-Z, a-z, 0-9, '-' and '_' (a prefix may hold dots between
// such parts).
func CheckName(what, s string, dots bool) error {
	if s == "" || len(s) > maxName {
		return fmt.Errorf("fleet: %s %q: want 1 to %d characters", what, s, maxName)
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
		if dots && r == '.' && i > 0 && i < len(s)-1 && s[i-1] != '.' {
			ok = true
		}
		if !ok {
			return fmt.Errorf("fleet: %s %q: only letters, digits, '-' and '_'%s", what, s, map[bool]string{true: " (and dots between parts)"}[dots])
		}
	}
	return nil
}

// sessionOf is the session token of an up subject under prefix for an
// instance, "" if the subject is not one.
func sessionOf(subject, prefix, instance string) string {
	rest, ok := strings.CutPrefix(subject, prefix+".i."+instance+".s.")
	if !ok {
		return ""
	}
	s, ok := strings.CutSuffix(rest, ".up")
	if !ok || strings.Contains(s, ".") {
		return ""
	}
	return s
}
