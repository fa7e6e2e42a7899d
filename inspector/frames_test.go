package inspector

import (
	"runtime"
	"slices"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestFramesCarryTheirCollections: a summary lists the last frames, oldest
// first, as many as the systems' recent runs; a garbage collection forced
// by a system in one frame is placed on that frame.
func TestFramesCarryTheirCollections(t *testing.T) {
	w := ecs.NewWorld()
	s := ecs.NewSchedule()
	const collectAt = 150
	s.Add("collector", func(w *ecs.World, c *ecs.Commands) {
		if w.Frame() == collectAt {
			runtime.GC()
		}
		c.Spawn() // one more entity each frame: the frames say how many
	})
	a := New(w, Options{Schedule: s})
	defer func() { must(t, a.Close()) }()
	for range 200 {
		s.Run(w)
		must(t, w.Tick())
		a.Sync()
	}
	sum := a.summary()
	fr := sum.Frames
	if len(fr) != protocol.MaxFrames || len(sum.Systems[0].Recent) != len(fr) {
		t.Fatalf("%d frames, %d recent runs; want %d of each", len(fr), len(sum.Systems[0].Recent), protocol.MaxFrames)
	}
	if fr[len(fr)-1].Tick != w.Frame() || fr[0].Tick != w.Frame()-protocol.MaxFrames+1 {
		t.Fatalf("frames %d to %d, the world at %d", fr[0].Tick, fr[len(fr)-1].Tick, w.Frame())
	}
	for _, f := range fr { // spawned in frame f.Tick-1, applied as it ran: alive as it ended
		if f.Entities != int(f.Tick) {
			t.Fatalf("frame %d ended with %d entities, want %d", f.Tick, f.Entities, f.Tick)
		}
	}
	var with []uint64
	for _, f := range fr {
		if f.GC > 0 {
			with = append(with, f.Tick)
			if f.GCPauseNs <= 0 {
				t.Errorf("frame %d: %d collections with no pause", f.Tick, f.GC)
			}
		}
	}
	// The system ran during frame collectAt; that frame ends as frame
	// collectAt+1 in the summary's numbering.
	if !slices.Contains(with, collectAt+1) {
		t.Fatalf("collections placed on frames %v; the forced one ran in frame %d", with, collectAt+1)
	}
}
