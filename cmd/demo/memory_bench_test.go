package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
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

// residentMB is the process's resident memory (VmRSS) in MB, or -1 where
// /proc does not say.
func residentMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				return -1
			}
			return float64(kb) / 1024
		}
	}
	return -1
}

// BenchmarkDemoResident: what the 1M demo holds resident (the process's
// VmRSS, what a laptop must hold: live heap, the collector's headroom,
// memory not yet given back), without and with the default agent,
// sampled after each of 80 frames once 40 have run (with -short, as CI
// runs every benchmark once to see it runs: 4 once 4 have); the mean and
// the peak. Memory from the case before is given back first.
func BenchmarkDemoResident(b *testing.B) {
	if residentMB() < 0 {
		b.Skip("no /proc/self/status here")
	}
	frames, warm := 120, 40
	if testing.Short() {
		frames, warm = 8, 4
	}
	for _, withAgent := range []bool{false, true} {
		b.Run(fmt.Sprintf("entities=1000000/agent=%v", withAgent), func(b *testing.B) {
			var mean, peak float64
			for b.Loop() {
				debug.FreeOSMemory()
				s := ecosystem.New(1_000_000, 1)
				var a *inspector.Agent
				if withAgent {
					a = inspector.New(s.World, inspector.Options{Addr: "127.0.0.1:0", Schedule: s.Schedule})
				}
				sum, n := 0.0, 0
				peak = 0
				for frame := range frames {
					s.Step()
					if a != nil {
						a.Sync()
					}
					if frame >= warm {
						r := residentMB()
						sum, n, peak = sum+r, n+1, max(peak, r)
					}
				}
				mean = sum / float64(n)
				if a != nil {
					if err := a.Close(); err != nil {
						b.Fatal(err)
					}
				}
				runtime.KeepAlive(s)
			}
			b.ReportMetric(mean, "MB-resident")
			b.ReportMetric(peak, "MB-peak")
		})
	}
}
