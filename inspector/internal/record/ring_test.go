package record

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestRingAsksForAKeyframeOnce: the ring asks for a keyframe when its
// frames since the last reach ringKeyGap, once: the frames the encoder,
// behind, codes before the keyframe it asked for are not each a new ask
// (each was a keyframe more, taken and coded while the encoder was
// already behind).
func TestRingAsksForAKeyframeOnce(t *testing.T) {
	asks := 0
	r := NewRing(1<<30, time.Hour, nil, 0)
	r.AskKeyframes(func() { asks++ })
	frame := func(tick uint64, full bool) {
		t.Helper()
		must(t, r.WriteWorld(&protocol.WorldFrame{Tick: tick, Full: full, Body: []byte{1}}))
	}
	frame(1, true)
	for tick := uint64(2); tick < 2+3*ringKeyGap; tick++ {
		frame(tick, false)
	}
	if asks != 1 {
		t.Fatalf("%d deltas after a keyframe asked for %d keyframes, want 1", 3*ringKeyGap, asks)
	}
	frame(100, true)
	for tick := uint64(101); tick < 101+ringKeyGap; tick++ {
		frame(tick, false)
	}
	if asks != 2 {
		t.Fatalf("after the next keyframe: %d asks in all, want 2", asks)
	}
}

// TestRingSaysWhenItsLimitIsShort: a world whose keyframes take most of
// the ring's byte limit keeps a frame or two, not its window: the ring
// says so, how far back it reaches and what limit would hold the window,
// in its description and in a rewind past its oldest tick.
func TestRingSaysWhenItsLimitIsShort(t *testing.T) {
	r := NewRing(3<<20, time.Hour, nil, 0)
	for tick := uint64(1); tick <= 5; tick++ {
		must(t, r.WriteWorld(&protocol.WorldFrame{Tick: tick, Full: true, Body: make([]byte, 1<<20)}))
		time.Sleep(2 * time.Millisecond) // frames some time apart: the reach is measured by them
	}
	d := r.Describe()
	if d.Frames > 3 || !strings.Contains(d.Short, "frames take about 1 MiB each: the 3 MiB limit holds") || !strings.Contains(d.Short, "Options.RewindBytes of about") {
		t.Fatalf("a ring short of its window: %+v", d)
	}
	if _, err := r.Span(1); err == nil || !strings.Contains(err.Error(), "not the 1h0m0s window") {
		t.Fatalf("a rewind past it: %v", err)
	}
	roomy := NewRing(1<<30, time.Hour, nil, 0)
	must(t, roomy.WriteWorld(&protocol.WorldFrame{Tick: 1, Full: true, Body: make([]byte, 1<<20)}))
	if s := roomy.Describe().Short; s != "" {
		t.Fatalf("a ring within its limit says %q", s)
	}
}

// TestRingWindowIsOfPlay: the ring's window is of the game's running time
// (its Clock), not the wall's: a long pause keeps every frame, and the
// ring says how many seconds of play it holds against its window.
func TestRingWindowIsOfPlay(t *testing.T) {
	var play time.Duration
	r := NewRing(1<<30, 10*time.Second, nil, 0)
	r.Clock = func() time.Duration { return play }
	frame := func(tick uint64) {
		t.Helper()
		must(t, r.WriteWorld(&protocol.WorldFrame{Tick: tick, Full: true, Body: []byte{1}}))
	}
	for tick := uint64(1); tick <= 5; tick++ { // a frame a second of play
		frame(tick)
		play += time.Second
	}
	time.Sleep(20 * time.Millisecond) // a pause: the wall moves on, play does not
	frame(6)
	if d := r.Describe(); d.From != 1 || d.To != 6 || d.Seconds != 5 || d.Window != 10 || d.Age != 0 {
		t.Fatalf("after a pause: %+v, want ticks 1-6 over 5 s of play of a 10 s window, the newest just kept", d)
	}
	play += 1500 * time.Millisecond
	if d := r.Describe(); d.Age != 1.5 {
		t.Fatalf("1.5 s of play after the newest frame: %+v", d)
	}
	play -= 1500 * time.Millisecond
	play += 20 * time.Second // play on: the window lets the old frames go
	frame(7)
	if d := r.Describe(); d.From != 7 || d.Seconds != 0 {
		t.Fatalf("20 s of play later: %+v, want only tick 7", d)
	}
}
