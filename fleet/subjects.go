package fleet

import (
	"fmt"
	"strings"
)

// DefaultPrefix begins every subject the fleet uses, unless an agent and its
// clients are given another (Options.BrokerPrefix, ?prefix= in a URL).
const DefaultPrefix = "ecsinspect"

// Subjects, for prefix P, instance I, client C and session S (PROTOCOL.md,
// "Over NATS"); each is in one instance's or one client's space, so a
// broker's permissions can keep every party to its own:
//
//	P.a.I                 instance I's signed Status, every AnnounceEvery, on a discover, and when it closes
//	P.discover            a client asks every instance to announce itself now
//	P.i.I.ping            a request instance I answers with its signed Status
//	P.i.I.c.C.s.S.up      client C's session S: bytes to instance I
//	P.i.I.c.C.s.S.down    client C's session S: bytes from instance I

// AnnounceSubject is where instance announces its Status.
func AnnounceSubject(prefix, instance string) string { return prefix + ".a." + instance }

// AnnouncementsSubject is every instance's announcements, to subscribe to.
func AnnouncementsSubject(prefix string) string { return prefix + ".a.*" }

// DiscoverSubject is where a client asks every instance to announce.
func DiscoverSubject(prefix string) string { return prefix + ".discover" }

// PingSubject is where a client asks one instance for its Status.
func PingSubject(prefix, instance string) string { return prefix + ".i." + instance + ".ping" }

// UpSubject carries client's session's bytes to the instance.
func UpSubject(prefix, instance, client, session string) string {
	return prefix + ".i." + instance + ".c." + client + ".s." + session + ".up"
}

// DownSubject carries client's session's bytes from the instance.
func DownSubject(prefix, instance, client, session string) string {
	return prefix + ".i." + instance + ".c." + client + ".s." + session + ".down"
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

// sessionOf is the client and session of an up subject under prefix for
// an instance; ok is false if the subject is not one.
func sessionOf(subject, prefix, instance string) (client, session string, ok bool) {
	rest, ok := strings.CutPrefix(subject, prefix+".i."+instance+".c.")
	if !ok {
		return "", "", false
	}
	rest, ok = strings.CutSuffix(rest, ".up")
	if !ok {
		return "", "", false
	}
	client, session, ok = strings.Cut(rest, ".s.")
	if !ok || client == "" || session == "" || strings.Contains(client, ".") || strings.Contains(session, ".") {
		return "", "", false
	}
	return client, session, true
}

// Permissions are the subjects a party on the broker may publish and
// subscribe to, as a broker's per-user permissions list them; Replies lets
// it answer requests (publish to the reply subject of a message it got).
type Permissions struct {
	Publish, Subscribe []string
	Replies            bool
}

// GamePermissions keeps instance's agent to its own space: its
// announcements, its ping, its sessions' down subjects.
func GamePermissions(prefix, instance string) Permissions {
	return Permissions{
		Publish:   []string{AnnounceSubject(prefix, instance), DownSubject(prefix, instance, "*", "*")},
		Subscribe: []string{DiscoverSubject(prefix), PingSubject(prefix, instance), UpSubject(prefix, instance, "*", "*")},
		Replies:   true,
	}
}

// ClientPermissions keeps client to its own sessions: it reads every
// announcement, asks any instance, and writes and reads only the sessions
// its name is in.
func ClientPermissions(prefix, client string) Permissions {
	return Permissions{
		Publish:   []string{DiscoverSubject(prefix), PingSubject(prefix, "*"), UpSubject(prefix, "*", client, "*")},
		Subscribe: []string{AnnouncementsSubject(prefix), DownSubject(prefix, "*", client, "*"), InboxPrefix(client) + ".>"},
	}
}

// InboxPrefix is where client's requests get their answers.
func InboxPrefix(client string) string { return "_INBOX." + client }

// downOf is the instance and session of a down subject of client under
// prefix; ok is false if the subject is not one.
func downOf(subject, prefix, client string) (instance, session string, ok bool) {
	rest, ok := strings.CutPrefix(subject, prefix+".i.")
	if !ok {
		return "", "", false
	}
	rest, ok = strings.CutSuffix(rest, ".down")
	if !ok {
		return "", "", false
	}
	instance, rest, ok = strings.Cut(rest, ".c."+client+".s.")
	if !ok || instance == "" || rest == "" || strings.Contains(instance, ".") || strings.Contains(rest, ".") {
		return "", "", false
	}
	return instance, rest, true
}
