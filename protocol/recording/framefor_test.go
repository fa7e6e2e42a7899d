package recording

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestFrameFor: the frame that shows a tick, and what is said of it: in a
// recording at a rate, the state as of the frame before; in a recording of
// every frame, a tick between two frames is a gap, said as such.
func TestFrameFor(t *testing.T) {
	every := &Recording{Frames: []FrameInfo{{Tick: 10}, {Tick: 11}, {Tick: 12}, {Tick: 20}}}
	if _, _, err := every.FrameFor(15); err == nil || !strings.Contains(err.Error(), "no frame recorded for tick 15: the recording skipped ticks 13 to 19") {
		t.Errorf("a gap in a recording of every frame: %v", err)
	}
	if gaps, ticks := every.Gaps(); gaps != 1 || ticks != 7 {
		t.Errorf("Gaps() = %d, %d; want 1 gap of 7 ticks", gaps, ticks)
	}
	if i, note, err := every.FrameFor(99); err != nil || i != 3 || !strings.Contains(note, "state as of tick 20") {
		t.Errorf("past the end of a recording of every frame: %d %q %v", i, note, err)
	}
	rec := &Recording{Header: RecordingHeader{Hz: 10}, Frames: []FrameInfo{{Tick: 10}, {Tick: 12}, {Tick: 20}}}
	if gaps, _ := rec.Gaps(); gaps != 0 {
		t.Errorf("a recording at a rate has %d gaps", gaps)
	}
	for _, c := range []struct {
		tick  uint64
		frame int
		note  string
	}{{10, 0, ""}, {12, 1, ""}, {15, 1, "tick 15 was not recorded: state as of tick 12"}, {99, 2, "state as of tick 20"}} {
		i, note, err := rec.FrameFor(c.tick)
		if err != nil || i != c.frame || !strings.Contains(note, c.note) || (c.note == "") != (note == "") {
			t.Errorf("FrameFor(%d) = %d %q %v, want %d %q", c.tick, i, note, err, c.frame, c.note)
		}
	}
	if _, _, err := rec.FrameFor(9); err == nil || !strings.Contains(err.Error(), "before the recording starts") {
		t.Errorf("a tick before the recording: %v", err)
	}
}

// TestGapReasonIsShownEscaped: a file's gap reason is anyone's text; what
// a reader says of the gap shows its control characters escaped, so a
// reason cannot retitle a terminal, clear it or forge a line.
func TestGapReasonIsShownEscaped(t *testing.T) {
	kf := tinyWorldWith(t, worldSchemas()[0].Fields)
	gap := &protocol.WorldFrame{Tick: kf.Tick + 5, Seq: 1, Skipped: 4, SkipWhy: "\x1b]0;pwned\a\x1b[2J\r\nFORGED: all good"}
	path := filepath.Join(t.TempDir(), "gap.ecsrec")
	if err := os.WriteFile(path, recordingOf(t, kf, gap), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	_, _, err = rec.FrameFor(kf.Tick + 2)
	if err == nil || !strings.Contains(err.Error(), `(\x1b]0;pwned\a\x1b[2J\r\nFORGED: all good)`) {
		t.Fatalf("FrameFor in the gap: %v", err)
	}
}

// TestTicksGoingBackAreRefused: a file whose ticks go back (1, 100, 50,
// 200, 150) would answer a seek wrongly; it is refused, the tick named.
func TestTicksGoingBackAreRefused(t *testing.T) {
	kf := tinyWorldWith(t, worldSchemas()[0].Fields)
	frames := []*protocol.WorldFrame{kf}
	for i, d := range []uint64{99, 49, 199, 149} {
		frames = append(frames, &protocol.WorldFrame{Tick: kf.Tick + d, Seq: uint64(i + 1)})
	}
	path := filepath.Join(t.TempDir(), "back.ecsrec")
	if err := os.WriteFile(path, recordingOf(t, frames...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := OpenRecording(path)
	if want := fmt.Sprintf("frame 3 is at tick %d, after frame 2 at tick %d: ticks in a recording never go back", kf.Tick+49, kf.Tick+99); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("opened with %v, want %q", err, want)
	}
}

// TestReplayStopsWhenAsked: a seek through many deltas tells Progress how
// far it got, and stops at once (ErrStopped) when Progress says so; the
// replay is whole again at the next seek.
func TestReplayStopsWhenAsked(t *testing.T) {
	in := worldInputs()
	enc := NewWorldEncoder()
	var frames []*protocol.WorldFrame
	for i := range 1000 {
		step := *in[1]
		if i == 0 {
			step = *in[0]
		}
		step.Tick = uint64(10 + i)
		f, err := enc.Encode(&step)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	path := filepath.Join(t.TempDir(), "long.ecsrec")
	if err := os.WriteFile(path, recordingOf(t, frames...), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := OpenFrames(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if rec.KeyframeAt(len(rec.Frames)-1) != 0 {
		t.Fatalf("the test needs one keyframe: %v", rec.KeyframeAt(len(rec.Frames)-1))
	}
	r := NewReplay(rec)
	var calls, last int
	r.Progress = func(applied, of int) bool {
		calls++
		last = applied
		return applied < 300
	}
	if _, err := r.At(len(rec.Frames) - 1); !errors.Is(err, ErrStopped) || last != 320 || calls != 6 {
		t.Fatalf("At with a Progress that stops past 300: %v after %d calls, the last at %d", err, calls, last)
	}
	r.Progress = nil
	st, err := r.At(len(rec.Frames) - 1)
	if err != nil || st.Tick != 1009 {
		t.Fatalf("the next seek: %v at %+v", err, st)
	}
}
