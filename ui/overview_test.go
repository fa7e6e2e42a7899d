package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestOverviewPane(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&overviewPane{common: c}, 100, 20)
	mustContain(t, p.View(), "tick 40000", "entities 30", "running", "free slots 2", "most recycled: 5 (gen 4)")
	c.summary.Paused = true
	mustContain(t, p.View(), "paused")
	c.summary.Stale = &protocol.StaleAudit{Total: 4, By: []protocol.StaleCount{{By: "hunting", Count: 3}, {By: "pack steering", Count: 1}},
		Recent: []protocol.StaleUse{{Entity: protocol.MakeEntityID(9, 1), Generation: 2, By: "hunting", Tick: 812}}}
	mustContain(t, p.View(), "4 uses of handles to dead entities, by: hunting 3, pack steering 1", "last: 9v1 at tick 812 by hunting")
}

// The overview says what the agent's in-memory recording holds: the ticks
// a rewind reaches and the seconds of play between them against the
// window it keeps, its frames' bytes against the limit and the world copy
// beside them.
func TestOverviewShowsTheRewindMemory(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&overviewPane{common: c}, 120, 30)
	if v := screenText(p.View()); strings.Contains(v, "rewind ticks") {
		t.Fatalf("a rewind line without an in-memory recording:\n%s", v)
	}
	c.summary.Agent.Rewind = &protocol.RewindRange{From: 39990, To: 40000, Frames: 11, Bytes: 3 << 20, Limit: 64 << 20, Copy: 45 << 20, Seconds: 12.5, Window: 30, Age: 3.25}
	mustContain(t, p.View(), "rewind ticks 39990-40000: 11 frames, 12.50s of play (keeps 30.00s)", "newest 3.25s ago; memory 3 MiB of 64 MiB, world copy 45 MiB")

	// A world too big for the ring: why it keeps none, and no empty range.
	why := "no rewind: a keyframe of this world holds about 44 MiB of values, and the 64 MiB limit would keep 1 at most (Options.RewindBytes of 220 MiB or more keeps the last moments)"
	c.summary.Agent.Rewind = &protocol.RewindRange{Limit: 64 << 20, Window: 30, Short: why}
	mustContain(t, p.View(), "no rewind: a keyframe of this world holds about 44 MiB", "moments)") // wrapped, not cut
	if v := screenText(p.View()); strings.Contains(v, "rewind ticks") {
		t.Fatalf("a rewind range shown for a ring that keeps nothing:\n%s", v)
	}
}

// TestOverviewShowsTheGamesMemory: the Overview gives the game's heap and
// collections, and, from summaries a second or more apart, what it
// allocates a frame and how often it collects.
func TestOverviewShowsTheGamesMemory(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&overviewPane{common: c}, 120, 40)
	first := *c.summary
	first.Tick, first.Agent.GC = 1000, &protocol.GCStats{Heap: 40 << 20, Goal: 80 << 20, Cycles: 10, PauseNs: 2e6, AllocBytes: 100 << 20, AllocObjects: 5000}
	p.Update(summaryMsg{&first})
	p.gcAt = p.gcAt.Add(-2 * time.Second) // two seconds pass
	next := first
	next.Tick, next.Agent.GC = 1100, &protocol.GCStats{Heap: 45 << 20, Goal: 80 << 20, Cycles: 14, PauseNs: 3e6, AllocBytes: 200 << 20, AllocObjects: 15000}
	p.Update(summaryMsg{&next})
	*c.summary = next
	mustContain(t, p.View(), "heap 45 MiB (next GC at 80 MiB), 14 GCs, 3.00ms paused in all",
		"allocating 1 MiB, 100 objects a frame; 2.0 GCs a second")
}
