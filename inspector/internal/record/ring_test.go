package record

import (
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
