package client

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// fakeAgent accepts one client, welcomes it, sends frames and hangs up
// without a word, as a game that dies does.
func fakeAgent(t *testing.T, frames ...*protocol.WorldFrame) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		c := protocol.NewConn(nc)
		if _, err := protocol.ServerHandshake(c, 2*time.Second, func(*protocol.Hello) (*protocol.Welcome, *protocol.Reject) {
			return &protocol.Welcome{Game: "dying", Caps: []string{"read"}}, nil
		}); err != nil {
			return
		}
		if _, err := c.Receive(); err != nil { // the world subscription
			return
		}
		for _, f := range frames {
			if err := c.Send(f); err != nil {
				return
			}
		}
	}()
	return ln.Addr().String()
}

// TestRecordingSaysTheGameWentAway: a game that goes away under a
// recording ends it with an error naming the last tick, not as if the
// user had stopped it; the file keeps what arrived.
func TestRecordingSaysTheGameWentAway(t *testing.T) {
	body := &protocol.WorldBody{Summary: protocol.Summary{Full: true}}
	f := &protocol.WorldFrame{Sub: 1, Tick: 41, Full: true}
	if err := protocol.SealBody(f, body); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	r, err := StartRecording(fakeAgent(t, f), "", path, 0)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.Done():
		if err == nil || !strings.Contains(err.Error(), "went away at tick 41") {
			t.Fatalf("the recording ended with %v, want the game gone at tick 41", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the recording did not end when the game went away")
	}
	rec, err := protocol.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if len(rec.Frames) != 1 || rec.Frames[0].Tick != 41 {
		t.Fatalf("the file holds %+v", rec.Frames)
	}
}
