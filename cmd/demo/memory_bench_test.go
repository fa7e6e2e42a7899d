package main

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// liveHeap is the heap's live bytes after a collection, from runtime/metrics.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// BenchmarkDemoMemory: the live heap of the demo world per entity, after
// some frames, without and with the default agent (its journal and
// in-memory recording), against the raw bytes of the entities' component
// values (the data a plain-Go program would hold). Reported as bytes per
// entity alive at the end (births take the world up to a fifth past the
// entities it starts with; entities says how many) and x-data; with the agent, what its in-memory recording holds (the
// frames, ring-bytes, and the world copy it codes them against,
// copy-bytes), as its telemetry tells them.
func BenchmarkDemoMemory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, withAgent := range []bool{false, true} {
			b.Run(fmt.Sprintf("entities=%d/agent=%v", n, withAgent), func(b *testing.B) {
				var before, after uint64
				var data, alive int
				var ring, worldCopy int64
				for b.Loop() {
					before = liveHeap()
					s := ecosystem.New(n, 1)
					var a *inspector.Agent
					if withAgent {
						a = inspector.New(s.World, inspector.Options{Addr: "127.0.0.1:0", Schedule: s.Schedule})
					}
					for range 30 {
						s.Step()
						if a != nil {
							a.Sync()
						}
					}
					after = liveHeap()
					if a != nil {
						rw := a.Telemetry().Rewind
						if rw == nil {
							b.Fatal("the agent keeps no in-memory recording")
						}
						ring, worldCopy = rw.Bytes, rw.Copy
					}
					data, alive = 0, s.World.Len()
					for _, ar := range s.World.Inspect().Archetypes() {
						for _, id := range ar.Components {
							data += ar.Len * int(s.World.Inspect().Component(id).Size)
						}
					}
					runtime.KeepAlive(s)
					if a != nil {
						if err := a.Close(); err != nil {
							b.Fatal(err)
						}
					}
				}
				per := func(bytes int64) float64 { return float64(bytes) / float64(max(alive, 1)) }
				b.ReportMetric(per(int64(after-before)), "bytes/entity")
				b.ReportMetric(float64(after-before)/float64(max(data, 1)), "x-data")
				b.ReportMetric(per(int64(data)), "data-bytes/entity")
				b.ReportMetric(float64(alive), "entities")
				if withAgent {
					b.ReportMetric(per(ring), "ring-bytes/entity")
					b.ReportMetric(per(worldCopy), "copy-bytes/entity")
				}
			})
		}
	}
}
