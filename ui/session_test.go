package ui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// sessionOn runs a session to addr, its messages to the UI on a channel.
func sessionOn(t *testing.T, addr, token string) (*session, <-chan tea.Msg) {
	s := newSession(client.GameAt(addr, token))
	msgs := make(chan tea.Msg, 4096)
	s.send = func(m tea.Msg) {
		select {
		case msgs <- m:
		default: // a test reads what it waits for; the rest may go
		}
	}
	done := make(chan struct{})
	go func() { s.run(); close(done) }()
	t.Cleanup(func() { s.close(); <-done })
	return s, msgs
}

// await returns the first message msgs yields that want takes, failing
// after a generous deadline (a hang guard, not a speed asserted).
func await(t *testing.T, msgs <-chan tea.Msg, what string, want func(tea.Msg) bool) tea.Msg {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case m := <-msgs:
			if want(m) {
				return m
			}
		case <-deadline:
			t.Fatalf("no %s came", what)
		}
	}
}

// TestSessionSubscribesAndAnswers: what the UI subscribed to before the
// connection is sent once it is up; a request's answer comes back with
// the request's id; a refused token closes the session for good instead
// of retrying.
func TestSessionSubscribesAndAnswers(t *testing.T) {
	addr, _, _ := testgame.Live(t, 200, 3)
	s, msgs := sessionOn(t, addr, "")
	s.subscribe(protocol.Subscribe{ID: subSummary, What: protocol.SubSummary, Hz: 30})
	await(t, msgs, "connection", func(m tea.Msg) bool { c, ok := m.(connMsg); return ok && c.state == stateConnected })
	sum := await(t, msgs, "summary", func(m tea.Msg) bool { _, ok := m.(summaryMsg); return ok }).(summaryMsg)
	if sum.s.Sub != subSummary || sum.s.Entities == 0 {
		t.Fatalf("summary %+v", sum.s)
	}
	var id uint32
	s.request("open", func(i uint32) protocol.Message {
		id = i
		return &protocol.GetEntity{ID: i, Entity: protocol.MakeEntityID(1<<20, 1)}
	})
	r := await(t, msgs, "reply", func(m tea.Msg) bool { r, ok := m.(replyMsg); return ok && r.r.ID == id }).(replyMsg)
	if r.r.OK || r.r.Code != protocol.ErrStale || r.what != "open" {
		t.Fatalf("a GetEntity of a handle never issued: %+v", r)
	}

	locked := inspector.New(ecs.NewWorld(), inspector.Options{Addr: "127.0.0.1:0", Token: "s3cret-0123456789abcdef"})
	if err := locked.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { locked.Close() })
	for _, token := range []string{"wrong-0123456789abcdef", "weak"} { // the agent refuses the first, the client the second
		_, refused := sessionOn(t, locked.Addr(), token)
		c := await(t, refused, "a closed session", func(m tea.Msg) bool { c, ok := m.(connMsg); return ok && c.state == stateClosed }).(connMsg)
		if c.err == nil {
			t.Fatal("closed without saying why")
		}
	}
}

// TestBackoffGrowsAndStops: reconnects wait 250 ms, doubling, at most 5 s.
func TestBackoffGrowsAndStops(t *testing.T) {
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for i, w := range want {
		if got := backoff(i + 1); got != w {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}
