package ark

import (
	"runtime"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	ark "github.com/mlange-42/ark/ecs"
)

// heapAfter is the heap in use, after a collection, once make has run
// (what make builds kept alive meanwhile), less the heap before it.
func heapAfter(make func() any) (bytes float64, kept any) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept = make()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return float64(after.HeapInuse) - float64(before.HeapInuse), kept
}

// BenchmarkFootprint: the heap a world takes for a million entities of
// Position and Velocity (two float64 pairs), made one by one and in a
// batch, ours (change detection on: its only mode) and ark's, measured
// one after the other in the same process; bytes/entity for each and
// x-ark, ours over ark's.
func BenchmarkFootprint(b *testing.B) {
	for _, batch := range []bool{false, true} {
		name := "op=one"
		if batch {
			name = "op=batch"
		}
		b.Run(name, func(b *testing.B) {
			var ours, arks float64
			for b.Loop() {
				o, keptO := heapAfter(func() any {
					w := ecs.NewWorld()
					m := ecs.NewMap2[position, velocity](w)
					if batch {
						m.SpawnBatch(million, nil)
					} else {
						for range million {
							m.Spawn(position{}, velocity{1, 1})
						}
					}
					return w
				})
				a, keptA := heapAfter(func() any {
					w := ark.NewWorld(1024)
					m := ark.NewMap2[position, velocity](w)
					if batch {
						m.NewBatchFn(million, nil)
					} else {
						for range million {
							m.NewEntity(&position{}, &velocity{1, 1})
						}
					}
					return w
				})
				if keptO.(*ecs.World).Len() != million || arkCount(ark.NewFilter0(keptA.(*ark.World))) != million {
					b.Fatal("the worlds do not hold a million entities each")
				}
				runtime.KeepAlive(keptO)
				runtime.KeepAlive(keptA)
				ours, arks = o, a
			}
			b.ReportMetric(ours/million, "bytes/entity")
			b.ReportMetric(arks/million, "ark-bytes/entity")
			b.ReportMetric(ours/arks, "x-ark")
		})
	}
}
