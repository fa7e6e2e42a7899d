package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/internal/benchpair"
)

// BenchmarkAllocAttribution: the 100k demo with each system's allocations
// read around its runs on every frame (Schedule.TrackAllocs) against the
// same demo without, interleaved; x-baseline is the cost (the agent reads
// them on fewer frames where the frame is short: allocsample.go).
func BenchmarkAllocAttribution(b *testing.B) {
	subj, base := ecosystem.New(100_000, 1), ecosystem.New(100_000, 1)
	subj.Schedule.TrackAllocs = true
	stepSim(subj, nil)
	stepSim(base, nil)
	if subj.World.Len() != base.World.Len() {
		b.Fatalf("the worlds differ before the loop: %d and %d entities", subj.World.Len(), base.World.Len())
	}
	if si := subj.Schedule.Systems()[0]; si.AllocRuns+si.AllocShared == 0 {
		b.Fatal("the subject's systems read no allocations")
	}
	var ts, tb time.Duration
	benchpair.Run(b, 1, "ns/frame", func() { ts += stepSim(subj, nil) }, func() { tb += stepSim(base, nil) })
	reportTicks(b, ts, tb)
}
