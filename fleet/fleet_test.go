package fleet

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/nats-io/nats.go"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// pair starts a broker, an instance listening (with timing) and a client
// session to it.
func pair(t *testing.T, timing Timing) (client, server net.Conn, ln *Listener, nc *nats.Conn) {
	t.Helper()
	b, err := localbroker.Start(localbroker.Options{})
	must(t, err)
	t.Cleanup(b.Shutdown)
	target, err := ParseURL(b.URL())
	must(t, err)
	nc, err = Connect(target, "test instance", 3*time.Second)
	must(t, err)
	t.Cleanup(nc.Close)
	ln, err = Listen(nc, target.Prefix, "inst", timing)
	must(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	p, err := Present(nc, target.Prefix, time.Second, NewInstanceKey(), func() Status { return Status{Instance: "inst", Game: "g"} })
	must(t, err)
	t.Cleanup(p.Stop)
	client, err = DialURL(b.URL()+"/inst", 3*time.Second)
	must(t, err)
	t.Cleanup(func() { _ = client.Close() })
	if _, err := client.Write([]byte("hello")); err != nil { // a session opens with its first message
		t.Fatal(err)
	}
	server, err = ln.Accept()
	must(t, err)
	t.Cleanup(func() { _ = server.Close() })
	got := make([]byte, 5)
	_, err = io.ReadFull(server, got)
	must(t, err)
	if string(got) != "hello" {
		t.Fatalf("the first bytes: %q", got)
	}
	return client, server, ln, nc
}

// TestSessionCarriesBytesBothWays: writes larger than a broker message,
// in both directions, arrive whole and in order.
func TestSessionCarriesBytesBothWays(t *testing.T) {
	client, server, _, _ := pair(t, Timing{})
	for _, dir := range []struct {
		name     string
		from, to net.Conn
	}{{"client to instance", client, server}, {"instance to client", server, client}} {
		want := make([]byte, 3<<20+12345)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range want {
			want[i] = byte(rng.IntN(256))
		}
		go func() {
			for off := 0; off < len(want); off += 700_001 {
				if _, err := dir.from.Write(want[off:min(off+700_001, len(want))]); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		got := make([]byte, len(want))
		_ = dir.to.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.ReadFull(dir.to, got)
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: the bytes differ", dir.name)
		}
	}
	must(t, client.Close())
	_ = server.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := server.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("after the client closed, the instance reads %v, want EOF", err)
	}
}

// TestReadDeadline: a read waits no longer than its deadline, and a
// deadline moved while it waits counts.
func TestReadDeadline(t *testing.T) {
	client, _, _, _ := pair(t, Timing{})
	must(t, client.SetReadDeadline(time.Now().Add(50*time.Millisecond)))
	if _, err := client.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v", err)
	}
	must(t, client.SetReadDeadline(time.Now().Add(time.Hour)))
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = client.SetReadDeadline(time.Now())
	}()
	if _, err := client.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read whose deadline moved: %v", err)
	}
}

// TestForgedAndLostMessagesEndTheSession: a message out of order or
// without its number ends the session with an error that says so; the
// reader never sees the forged bytes.
func TestForgedAndLostMessagesEndTheSession(t *testing.T) {
	for _, tc := range []struct {
		name string
		seq  string
		want string
	}{{"a forged number", "7", "came where"}, {"no number", "", "without its number"}} {
		t.Run(tc.name, func(t *testing.T) {
			client, server, _, nc := pair(t, Timing{})
			up := client.(*streamConn).out
			m := nats.NewMsg(up)
			if tc.seq != "" {
				m.Header.Set(SeqHeader, tc.seq)
			}
			m.Data = []byte("forged")
			must(t, nc.PublishMsg(m))
			_ = server.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 64)
			n, err := server.Read(buf)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(string(buf[:n]), "forged") {
				t.Fatalf("read %q, %v", buf[:n], err)
			}
		})
	}
}

// TestSilentPeerIsGone: a peer that vanished without closing (its broker
// connection dropped) is noticed within the idle timeout.
func TestSilentPeerIsGone(t *testing.T) {
	client, server, _, _ := pair(t, Timing{Ping: 20 * time.Millisecond, Idle: 100 * time.Millisecond})
	client.(*streamConn).nc.Close() // its process died: no close message, no pings
	_ = server.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := server.Read(make([]byte, 1)); err == nil || !strings.Contains(err.Error(), "nothing heard") || !errors.Is(err, protocol.ErrPeerSilent) {
		t.Fatalf("a silent peer: %v (an agent drops its client with code timeout for protocol.ErrPeerSilent)", err)
	}
}

// TestSessionsAreBounded: openings past MaxSessions are refused with a
// reason the client reads, and count.
func TestSessionsAreBounded(t *testing.T) {
	_, _, ln, nc := pair(t, Timing{})
	for i := range MaxSessions + 20 {
		m := nats.NewMsg(UpSubject(DefaultPrefix, "inst", AnonymousClient, "s"+strconv.Itoa(i)))
		m.Header.Set(SeqHeader, "1")
		m.Data = []byte{1}
		must(t, nc.PublishMsg(m))
	}
	must(t, nc.Flush())
	deadline := time.Now().Add(5 * time.Second)
	for ln.Refused.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if ln.Refused.Load() == 0 || ln.Sessions() > MaxSessions {
		t.Fatalf("%d sessions open, %d refused", ln.Sessions(), ln.Refused.Load())
	}
}

// TestRosterSeesComingAndGoing: instances are discovered on request and
// by their announcements; one that closes is gone ("closed"), one that
// goes silent is gone ("silent"), and neither is dropped.
func TestRosterSeesComingAndGoing(t *testing.T) {
	b, err := localbroker.Start(localbroker.Options{})
	must(t, err)
	defer b.Shutdown()
	target, err := ParseURL(b.URL())
	must(t, err)
	var stops []func()
	for _, name := range []string{"a", "b", "c"} {
		nc, err := Connect(target, name, time.Second)
		must(t, err)
		defer nc.Close()
		p, err := Present(nc, DefaultPrefix, 50*time.Millisecond, NewInstanceKey(), func() Status { return Status{Instance: name, Game: "g", Tick: 7} })
		must(t, err)
		stops = append(stops, func() { p.Stop() })
		if name == "c" {
			stops[2] = func() { close(p.stop); <-p.done; p.unsubscribe() } // silent: no goodbye
		}
	}
	nc, err := Connect(target, "roster", time.Second)
	must(t, err)
	defer nc.Close()
	r, err := WatchRoster(nc, DefaultPrefix, "")
	must(t, err)
	defer r.Close()
	wait := func(what string, ok func(map[string]Member) bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			byName := map[string]Member{}
			for _, m := range r.Members() {
				byName[m.Instance] = m
			}
			if ok(byName) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %+v", what, byName)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	wait("three live", func(m map[string]Member) bool { return len(m) == 3 && !m["a"].Gone && m["b"].Tick == 7 })
	stops[0]()
	stops[2]()
	wait("a closed, c silent, b live", func(m map[string]Member) bool {
		return m["a"].Gone && m["a"].Why == "closed" && m["c"].Gone && m["c"].Why == "silent" && !m["b"].Gone
	})
	stops[1]()
}

// TestListWaitsForHeldAnswers: an instance that announced just before a
// List holds its answer back (once each announceGap), while another
// answers at once; List still names both.
func TestListWaitsForHeldAnswers(t *testing.T) {
	b, err := localbroker.Start(localbroker.Options{})
	must(t, err)
	defer b.Shutdown()
	target, err := ParseURL(b.URL())
	must(t, err)
	present := func(name string) {
		nc, err := Connect(target, name, time.Second)
		must(t, err)
		t.Cleanup(nc.Close)
		p, err := Present(nc, DefaultPrefix, time.Hour, NewInstanceKey(), func() Status { return Status{Instance: name, Game: "g"} })
		must(t, err)
		t.Cleanup(p.Stop)
	}
	nc, err := Connect(target, "lister", time.Second)
	must(t, err)
	defer nc.Close()
	for round := range 3 {
		present("early" + strconv.Itoa(round))
		time.Sleep(2 * announceGap)           // early answers a discover at once
		present("late" + strconv.Itoa(round)) // late just announced: it holds its answer
		got, err := List(nc, DefaultPrefix, "", 0, 0)
		must(t, err)
		if len(got) != 2*(round+1) {
			t.Fatalf("round %d: List named %d instances: %+v", round, len(got), got)
		}
	}
}

// TestStatusRoundTrip: a status decodes as it was encoded; what no agent
// sends is refused.
func TestStatusRoundTrip(t *testing.T) {
	s := Status{Game: "g", Instance: "match-1", Host: "h", PID: 3, Tick: 9, TPS: 60, FrameP99: 1.5, Entities: 100, Paused: true, Hits: 2, At: 5, Every: 2}
	b, err := EncodeStatus(s)
	must(t, err)
	got, err := DecodeStatus(b)
	must(t, err)
	if got != s {
		t.Fatalf("%+v, want %+v", got, s)
	}
	bad := s
	bad.Instance = "a.b"
	if b, err := EncodeStatus(bad); err == nil {
		if _, err := DecodeStatus(b); err == nil {
			t.Fatal("an instance name with a dot was taken")
		}
	}
	for _, b := range [][]byte{nil, {0xc0}, {0x91, 0x01}, append(b, 0x00), bytes.Repeat([]byte{0x81}, MaxStatus+1)} {
		if _, err := DecodeStatus(b); err == nil {
			t.Fatalf("% x was taken as a status", b)
		}
	}
}

// FuzzDecodeStatus: any bytes from the broker give a status that passes
// the checks, or an error; never a panic.
func FuzzDecodeStatus(f *testing.F) {
	good, _ := EncodeStatus(Status{Game: "g", Instance: "i", Tick: 1, TPS: 2})
	f.Add(good)
	f.Add([]byte{0x81, 0xa4, 'i', 'n', 's', 't', 0xdb, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeStatus(b)
		if err != nil {
			return
		}
		if CheckName("instance", s.Instance, false) != nil || s.TPS < 0 || s.Entities < 0 {
			t.Fatalf("a status that fails its checks was taken: %+v", s)
		}
	})
}

// FuzzSessionMessages: whatever messages reach a session (numbers, ops,
// payloads in any order), its reader gets the payloads of the messages in
// order up to the first that breaks it, then an error; never a panic.
func FuzzSessionMessages(f *testing.F) {
	f.Add([]byte{1, 0, 3, 'a', 'b', 'c', 2, 1, 0, 3, 0, 1, 'x'})
	f.Fuzz(func(t *testing.T, script []byte) {
		c := &streamConn{readDL: newDeadline(), closed: make(chan struct{}), nextIn: 1, arrived: make(chan struct{}, 1), limit: maxBuffered}
		var want []byte
		broken := false
		next := uint64(1)
		for len(script) >= 3 {
			seq, op, n := uint64(script[0]), script[1]%4, int(script[2])
			script = script[3:]
			n = min(n, len(script))
			data := script[:n]
			script = script[n:]
			m := nats.NewMsg("x")
			if seq != 0 {
				m.Header.Set(SeqHeader, strconv.FormatUint(seq, 10))
			}
			m.Header.Set(OpHeader, []string{"", "ping", "close", "bogus"}[op])
			m.Data = data
			c.deliver(m)
			if broken {
				continue
			}
			if seq != next || op == 3 || op == 2 {
				broken = true
				continue
			}
			next++
			if op == 0 {
				want = append(want, data...)
			}
		}
		c.readDL.set(time.Now()) // read what is there, then stop
		got, err := io.ReadAll(c)
		if !bytes.Equal(got, want) {
			t.Fatalf("read %q, want %q (%v)", got, want, err)
		}
	})
}

// TestUnreadBytesAreBounded: a client that writes without end into a
// session its instance does not read ends that session at the session's
// bound; the instance's sessions together stay under the instance's, and
// a closed session gives its bytes back.
func TestUnreadBytesAreBounded(t *testing.T) {
	_, server, ln, _ := pair(t, Timing{})
	s := server.(*streamConn)
	chunk := make([]byte, 512<<10)
	for range 2 * sessionBuffered / len(chunk) { // numbered right, as the broker would deliver them
		s.mu.Lock()
		next := s.nextIn
		s.mu.Unlock()
		m := nats.NewMsg("flood")
		m.Header.Set(SeqHeader, strconv.FormatUint(next, 10))
		m.Data = chunk
		s.deliver(m)
	}
	if held := ln.unread.held.Load(); held > sessionBuffered {
		t.Fatalf("the instance holds %d bytes unread, more than a session's %d", held, sessionBuffered)
	}
	_ = server.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(server); err == nil || !strings.Contains(err.Error(), "arrived unread") {
		t.Fatalf("a session flooded past its bound: %v", err)
	}
	must(t, server.Close())
	if held := ln.unread.held.Load(); held != 0 {
		t.Fatalf("a closed session still holds %d bytes of the instance's", held)
	}
}

// TestLosingTheBrokerEndsItsSessions: when a tool's broker connection
// drops, every session open on it ends with that reason at once, not when
// the idle timeout (an hour here) would notice the silence.
func TestLosingTheBrokerEndsItsSessions(t *testing.T) {
	lb, err := localbroker.Start(localbroker.Options{})
	must(t, err)
	t.Cleanup(lb.Shutdown)
	target, err := ParseURL(lb.URL())
	must(t, err)
	nc, err := Connect(target, "test instance", 3*time.Second)
	must(t, err)
	t.Cleanup(nc.Close)
	long := Timing{Idle: time.Hour}
	ln, err := Listen(nc, target.Prefix, "inst", long)
	must(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	p, err := Present(nc, target.Prefix, time.Second, NewInstanceKey(), func() Status { return Status{Instance: "inst", Game: "g"} })
	must(t, err)
	t.Cleanup(p.Stop)
	b, err := ConnectBroker(target, "test tool", 3*time.Second, long)
	must(t, err)
	t.Cleanup(b.Close)
	var sessions []net.Conn
	for range 2 {
		c, err := b.Dial("inst", 3*time.Second)
		must(t, err)
		sessions = append(sessions, c)
	}
	lb.Shutdown()
	for i, c := range sessions {
		_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // a guard against a hang, not a speed asserted
		if _, err := c.Read(make([]byte, 1)); err == nil || !strings.Contains(err.Error(), "lost the broker") {
			t.Fatalf("session %d after the broker went: %v", i, err)
		}
	}
}

// TestOneClientsFloodLeavesRoomForOthers: a client that opens sessions as
// fast as it can gets its own budget's worth (a burst, then its rate, at
// most ClientSessions open), the rest unanswered; an honest client
// opening one session after the flood is served.
func TestOneClientsFloodLeavesRoomForOthers(t *testing.T) {
	_, _, ln, nc := pair(t, Timing{})
	opening := func(client, session string) {
		m := nats.NewMsg(UpSubject(DefaultPrefix, "inst", client, session))
		m.Header.Set(SeqHeader, "1")
		m.Data = []byte{1}
		must(t, nc.PublishMsg(m))
	}
	for i := range 2000 {
		opening("flood", "s"+strconv.Itoa(i))
	}
	opening("honest", "h1")
	must(t, nc.Flush())
	served := map[string]int{}
	deadline := time.Now().Add(5 * time.Second)
	for served["nats:honest"] == 0 {
		accepted := make(chan net.Conn, 1)
		go func() {
			c, err := ln.Accept()
			if err == nil {
				accepted <- c
			}
		}()
		select {
		case c := <-accepted:
			served[c.RemoteAddr().String()]++
		case <-time.After(time.Until(deadline)):
			t.Fatalf("the honest client was not served after a flood: %v served, %d refused", served, ln.Refused.Load())
		}
	}
	if n := served["nats:flood"]; n > ClientOpenBurst+ClientOpenRate*6 {
		t.Fatalf("the flooding client got %d sessions", n)
	}
}
