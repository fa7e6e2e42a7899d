package client

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
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
		if _, err := protocol.ServerHandshake(c, 2*time.Second, func(*protocol.Hello, protocol.Prover) (*protocol.Welcome, *protocol.Reject) {
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
	r, err := StartRecording(GameAt(fakeAgent(t, f), ""), path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := ended(t, r); err == nil || !strings.Contains(err.Error(), "went away at tick 41") {
		t.Fatalf("the recording ended with %v, want the game gone at tick 41", err)
	}
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if len(rec.Frames) != 1 || rec.Frames[0].Tick != 41 {
		t.Fatalf("the file holds %+v", rec.Frames)
	}
}

// TestRecordingMarksItsGaps: frames the agent left out of an every-frame
// stream are counted live (Dropped, with the agent's reason), kept in the
// file, and a reader asked for a tick in the gap says so instead of
// answering with the frame before.
func TestRecordingMarksItsGaps(t *testing.T) {
	var frames []*protocol.WorldFrame
	for i, tick := range []uint64{40, 41, 45, 46} {
		f := &protocol.WorldFrame{Sub: 1, Tick: tick, Full: i == 0, Seq: uint64(i)}
		if tick == 45 {
			f.Skipped, f.SkipWhy = 3, "capturing took more than its share of the game's time"
		}
		body := &protocol.WorldBody{Summary: protocol.Summary{Full: i == 0}}
		if err := protocol.SealBody(f, body); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	r, err := StartRecording(GameAt(fakeAgent(t, frames...), ""), path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ended(t, r)
	if n, why := r.Dropped(); n != 3 || !strings.Contains(why, "share of the game's time") {
		t.Fatalf("Dropped() = %d %q, want the 3 frames and the agent's reason", n, why)
	}
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if gaps, ticks := rec.Gaps(); gaps != 1 || ticks != 3 {
		t.Fatalf("Gaps() = %d, %d", gaps, ticks)
	}
	_, _, err = rec.FrameFor(43)
	if err == nil || !strings.Contains(err.Error(), "no frame recorded for tick 43: the recording skipped ticks 42 to 44 (capturing took more than its share of the game's time)") {
		t.Fatalf("FrameFor(43) in the gap: %v", err)
	}
}

// TestRecordingEndsAtItsFrames: a recording asked for two frames ends by
// itself once the file holds them, with no error (the user asked), the
// frames after them left out.
func TestRecordingEndsAtItsFrames(t *testing.T) {
	var frames []*protocol.WorldFrame
	for i, tick := range []uint64{40, 41, 42} {
		f := &protocol.WorldFrame{Sub: 1, Tick: tick, Full: i == 0, Seq: uint64(i)}
		if err := protocol.SealBody(f, &protocol.WorldBody{Summary: protocol.Summary{Full: i == 0}}); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	r, err := StartRecording(GameAt(fakeAgent(t, frames...), ""), path, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := ended(t, r); err != nil {
		t.Fatalf("a recording that reached its frames ended with %v", err)
	}
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if len(rec.Frames) != 2 || rec.Frames[1].Tick != 41 {
		t.Fatalf("the file holds %+v, want ticks 40 and 41", rec.Frames)
	}
}

// ended waits for a recording to end by itself and returns its outcome.
func ended(t *testing.T, r *Recording) error {
	t.Helper()
	select {
	case err := <-r.Done():
		return err
	case <-time.After(15 * time.Second):
		t.Fatal("the recording did not end by itself")
		return nil
	}
}
