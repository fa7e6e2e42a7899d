package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestMeasuredGuardSuspendsTheCostliest: checks that take more than 2 ms
// and a fifth of the frame, frame after frame, suspend the watchpoint
// charged the most; under either bound, nothing is suspended.
func TestMeasuredGuardSuspendsTheCostliest(t *testing.T) {
	var frameNs int64
	s := &Set{frameNs: func() int64 { return frameNs }}
	for id := range uint32(2) {
		s.list = append(s.list, &watchpoint{Watchpoint: protocol.Watchpoint{ID: id + 1, Log: true, On: true}})
	}
	frames := func(took time.Duration, ns int64) (suspended []string) {
		for range watchOverFrames {
			s.list[0].units, s.list[1].units = 10, 20
			s.frameTook, frameNs = took, ns
			s.endWatchFrame()
		}
		for _, wp := range s.list {
			suspended = append(suspended, wp.Suspended)
		}
		return suspended
	}
	if s := frames(3*time.Millisecond, int64(20*time.Millisecond)); s[0] != "" || s[1] != "" {
		t.Fatalf("3 ms of a 20 ms frame suspended %q", s)
	}
	if s := frames(time.Millisecond, int64(2*time.Millisecond)); s[0] != "" || s[1] != "" {
		t.Fatalf("1 ms of a 2 ms frame suspended %q", s)
	}
	if s := frames(5*time.Millisecond, int64(20*time.Millisecond)); s[0] != "" || !strings.Contains(s[1], "cost the most") {
		t.Fatalf("5 ms of a 20 ms frame suspended %q, want the second, costlier one", s)
	}
}
