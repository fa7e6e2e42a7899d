package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
)

// TestSystemsShowTheirAllocations: on the demo with its agent, the
// summary's systems carry what their runs allocate, measured on the
// frames the agent samples (one in a few of this small world's short
// frames), each system's runs either its own or shared.
func TestSystemsShowTheirAllocations(t *testing.T) {
	sim := ecosystem.New(5_000, 1)
	a := New(sim.World, Options{Schedule: sim.Schedule})
	defer func() { must(t, a.Close()) }()
	for range 30 {
		stepSim(sim, a)
	}
	measured := 0
	for _, s := range a.summary().Systems {
		t.Logf("%s: %.0f B, %.1f objects a run over %d runs, %d shared", s.Name, s.AllocBytes, s.AllocObjects, s.AllocRuns, s.AllocShared)
		if s.AllocRuns+s.AllocShared > 0 {
			measured++
		}
	}
	if measured != len(a.summary().Systems) || measured == 0 {
		t.Fatalf("%d of %d systems measured after 30 frames", measured, len(a.summary().Systems))
	}
}

// TestAllocReadsKeepToTheirShare: the frames that read their systems'
// allocations are spaced by what the reads were measured to cost: the
// 100k demo's 11 systems at 9 us a run in 7 ms frames read one frame in
// eight; a game of a few milliseconds' systems at a quiet goroutine's
// 0.6 us, every frame.
func TestAllocReadsKeepToTheirShare(t *testing.T) {
	for _, c := range []struct {
		systems      int
		perRun, work time.Duration
		want         uint64
	}{
		{11, 9 * time.Microsecond, 7 * time.Millisecond, 8},
		{4, 600 * time.Nanosecond, 2 * time.Millisecond, 1},
		{3, 9 * time.Microsecond, 100 * time.Microsecond, 136},
	} {
		if got := allocEvery(c.systems, c.perRun, c.work); got != c.want {
			t.Errorf("%d systems at %v a run in %v frames: one frame in %d, want %d", c.systems, c.perRun, c.work, got, c.want)
		}
	}
}
