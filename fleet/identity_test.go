package fleet

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
	"github.com/nats-io/nats.go"
)

// forger is a publisher on the broker with a key of its own.
type forger struct {
	t   *testing.T
	nc  *nats.Conn
	key ed25519.PrivateKey
}

// announce publishes s under its instance's name, signed with the
// forger's key.
func (f forger) announce(s Status) {
	f.t.Helper()
	s.At, s.Every = time.Now().UnixMilli(), 1
	m, err := signedStatus(AnnounceSubject(DefaultPrefix, s.Instance), s, f.key)
	must(f.t, err)
	must(f.t, f.nc.PublishMsg(m))
	must(f.t, f.nc.Flush())
}

// identityFleet is a broker with one real instance, "victim" (signed with
// key), a forger and a roster following the fleet with token.
func identityFleet(t *testing.T, key ed25519.PrivateKey, token string) (*Roster, forger, *Presence) {
	b, err := localbroker.Start(localbroker.Options{})
	must(t, err)
	t.Cleanup(b.Shutdown)
	target, err := ParseURL(b.URL())
	must(t, err)
	conn := func(name string) *nats.Conn {
		nc, err := Connect(target, name, time.Second)
		must(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
	started := time.Now().UnixMilli()
	p, err := Present(conn("victim"), DefaultPrefix, 100*time.Millisecond, key, func() Status {
		return Status{Instance: "victim", Game: "g", Host: "real", PID: 1, Started: started}
	})
	must(t, err)
	t.Cleanup(p.Stop)
	r, err := WatchRoster(conn("roster"), DefaultPrefix, token)
	must(t, err)
	t.Cleanup(r.Close)
	waitMember(t, r, "the real victim", func(m Member) bool { return m.Host == "real" && !m.Gone })
	return r, forger{t: t, nc: conn("forger"), key: NewInstanceKey()}, p
}

// waitMember waits until the roster's victim is as wanted.
func waitMember(t *testing.T, r *Roster, what string, ok func(Member) bool) Member {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, m := range r.Members() {
			if m.Instance == "victim" && ok(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %+v", what, r.Members())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// victim is the roster's victim now.
func victim(r *Roster) Member {
	for _, m := range r.Members() {
		if m.Instance == "victim" {
			return m
		}
	}
	return Member{}
}

// TestTokenMakesNamesUnforgeable: with the fleet's token, an announcement
// under a real instance's name signed with any other key is dropped as
// forged: it changes nothing the roster shows, a fake "gone" hides
// nothing, and a name nobody runs cannot be filled either.
func TestTokenMakesNamesUnforgeable(t *testing.T) {
	const token = "fleet-s3cret"
	r, evil, _ := identityFleet(t, InstanceKey(token, "victim"), token)
	evil.announce(Status{Instance: "victim", Game: "g", Host: "evil", PID: 666, Hits: 999})
	evil.announce(Status{Instance: "victim", Game: "g", Host: "evil", Gone: true})
	evil.announce(Status{Instance: "ghost", Game: "g", Host: "evil"})
	deadline := time.Now().Add(5 * time.Second)
	for r.Forged.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if r.Forged.Load() != 3 {
		t.Fatalf("%d forgeries seen, want 3", r.Forged.Load())
	}
	if m := victim(r); m.Host != "real" || m.Gone || m.Hits != 0 || m.Conflict != "" || len(r.Members()) != 1 {
		t.Fatalf("after the forgeries the roster holds %+v", r.Members())
	}
	// Unsigned bytes on the name's subject are not a status at all.
	must(t, evil.nc.Publish(AnnounceSubject(DefaultPrefix, "victim"), []byte{0x80}))
	must(t, evil.nc.Flush())
	for r.Bad.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if r.Bad.Load() == 0 {
		t.Error("an unsigned status was not counted as bad")
	}
}

// TestPinnedNameShowsConflicts: without a token, the key first heard
// under a name is pinned while that instance lives: another key under it
// is shown as a conflict and never merged, a "gone" signed by another key
// hides nothing, and once the real instance is gone a new run takes the
// name.
func TestPinnedNameShowsConflicts(t *testing.T) {
	r, evil, p := identityFleet(t, NewInstanceKey(), "")
	evil.announce(Status{Instance: "victim", Game: "g", Host: "evil", PID: 666, Hits: 999})
	evil.announce(Status{Instance: "victim", Game: "g", Host: "evil", Gone: true})
	m := waitMember(t, r, "a conflict", func(m Member) bool { return m.Conflicts >= 2 })
	if m.Host != "real" || m.Gone || m.Hits != 0 {
		t.Fatalf("a conflicting key changed the member: %+v", m)
	}
	p.Stop() // the real victim says goodbye, signed
	waitMember(t, r, "the victim gone", func(m Member) bool { return m.Gone && m.Why == "closed" })
	evil.announce(Status{Instance: "victim", Game: "g", Host: "next", PID: 2, Started: time.Now().UnixMilli()})
	waitMember(t, r, "a new run", func(m Member) bool { return m.Host == "next" && m.Restarted && !m.Gone })
}

// TestReplayedAnnouncementsChangeNothing: a stranger who kept a game's own
// signed announcements cannot roll its row back within the run (an older
// announcement) nor bring it back after its goodbye.
func TestReplayedAnnouncementsChangeNothing(t *testing.T) {
	b, err := localbroker.Start(localbroker.Options{})
	must(t, err)
	t.Cleanup(b.Shutdown)
	target, err := ParseURL(b.URL())
	must(t, err)
	nc, err := Connect(target, "replayer", time.Second)
	must(t, err)
	t.Cleanup(nc.Close)
	rc, err := Connect(target, "roster", time.Second)
	must(t, err)
	t.Cleanup(rc.Close)
	r, err := WatchRoster(rc, DefaultPrefix, "")
	must(t, err)
	t.Cleanup(r.Close)
	keys := map[string]ed25519.PrivateKey{"victim": NewInstanceKey(), "marker": NewInstanceKey()}
	started := time.Now().Add(-time.Minute).UnixMilli()
	send := func(name string, s Status) {
		t.Helper()
		s.Instance, s.Started, s.Every = name, started, 1
		m, err := signedStatus(AnnounceSubject(DefaultPrefix, name), s, keys[name])
		must(t, err)
		must(t, nc.PublishMsg(m))
		must(t, nc.Flush())
	}
	marks := uint64(0)
	// settled waits until the roster took every message sent so far (the
	// broker keeps one publisher's order: a marker sent last came last).
	settled := func() Member {
		t.Helper()
		marks++
		send("marker", Status{Tick: marks, At: time.Now().UnixMilli()})
		deadline := time.Now().Add(5 * time.Second)
		for {
			for _, m := range r.Members() {
				if m.Instance == "marker" && m.Tick == marks {
					return victim(r)
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the roster never took marker %d", marks)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	old := time.Now().Add(-30 * time.Second).UnixMilli()
	send("victim", Status{Tick: 200, At: old})
	send("victim", Status{Tick: 1700, At: old + 15_000})
	send("victim", Status{Tick: 200, At: old}) // replayed
	if m := settled(); m.Tick != 1700 {
		t.Fatalf("a replayed announcement rolled the row back to tick %d", m.Tick)
	}
	send("victim", Status{Tick: 1701, At: old + 15_001, Gone: true})
	send("victim", Status{Tick: 1700, At: old + 15_000}) // replayed after the goodbye
	send("victim", Status{Tick: 1702, At: old + 16_000}) // a word after the goodbye
	if m := settled(); !m.Gone || m.Tick != 1701 {
		t.Fatalf("after its goodbye and replays the victim reads tick %d, gone %v", m.Tick, m.Gone)
	}
}

// TestPingsAnswerOnlyInboxes: a ping whose reply subject is an instance's
// announcements (or any subject not an inbox) is not answered, so a
// stranger cannot make the instance publish its status where it does not
// belong; an honest ping is.
func TestPingsAnswerOnlyInboxes(t *testing.T) {
	_, f, p := identityFleet(t, NewInstanceKey(), "")
	misplaced := AnnounceSubject(DefaultPrefix, "elsewhere")
	got := make(chan *nats.Msg, 4)
	sub, err := f.nc.ChanSubscribe(misplaced, got)
	must(t, err)
	defer func() { must(t, sub.Unsubscribe()) }()
	m := nats.NewMsg(PingSubject(DefaultPrefix, "victim"))
	m.Reply = misplaced
	must(t, f.nc.PublishMsg(m))
	must(t, f.nc.Flush())
	if _, err := f.nc.Request(PingSubject(DefaultPrefix, "victim"), nil, 2*time.Second); err != nil {
		t.Fatalf("an honest ping: %v", err)
	}
	select {
	case r := <-got:
		t.Fatalf("a ping made the instance publish on %s: %s", r.Subject, r.Data)
	default:
	}
	if p.Misdirected.Load() != 1 {
		t.Errorf("misdirected pings counted: %d, want 1", p.Misdirected.Load())
	}
}
