package ark

import (
	"fmt"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	ark "github.com/mlange-42/ark/ecs"
)

// Ten components of the public suite's create10comp.
type (
	k0 struct{ V int64 }
	k1 struct{ V int64 }
	k2 struct{ V int64 }
	k3 struct{ V int64 }
	k4 struct{ V int64 }
	k5 struct{ V int64 }
	k6 struct{ V int64 }
	k7 struct{ V int64 }
	k8 struct{ V int64 }
	k9 struct{ V int64 }
)

// BenchmarkCreate10Comp: n entities of ten components made in a fresh
// world, one at a time (ours SpawnIDs, ark's Map10.NewEntity) and in a
// batch (ours SpawnBatchIDs, ark's Map10.NewBatch), each interleaved with
// ark's, the order alternating; world creation is not timed.
func BenchmarkCreate10Comp(b *testing.B) {
	ids := func(w *ecs.World) []ecs.ComponentID {
		return []ecs.ComponentID{ecs.ComponentIDOf[k0](w), ecs.ComponentIDOf[k1](w), ecs.ComponentIDOf[k2](w), ecs.ComponentIDOf[k3](w),
			ecs.ComponentIDOf[k4](w), ecs.ComponentIDOf[k5](w), ecs.ComponentIDOf[k6](w), ecs.ComponentIDOf[k7](w), ecs.ComponentIDOf[k8](w), ecs.ComponentIDOf[k9](w)}
	}
	timedSetup := func(setup func() func() int) func() time.Duration {
		return func() time.Duration {
			run := setup()
			start := time.Now()
			if got := run(); got == 0 {
				b.Fatal("nothing created")
			}
			return time.Since(start)
		}
	}
	for _, n := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("op=one/n=%d", n), func(b *testing.B) {
			ours := timedSetup(func() func() int {
				w := ecs.NewWorld()
				cs := ids(w)
				return func() int {
					for range n {
						if _, err := w.SpawnIDs(cs...); err != nil {
							b.Fatal(err)
						}
					}
					return w.Len()
				}
			})
			arks := timedSetup(func() func() int {
				w := ark.NewWorld()
				m := ark.NewMap10[k0, k1, k2, k3, k4, k5, k6, k7, k8, k9](w)
				var c0 k0
				var c1 k1
				var c2 k2
				var c3 k3
				var c4 k4
				var c5 k5
				var c6 k6
				var c7 k7
				var c8 k8
				var c9 k9
				return func() int {
					for range n {
						m.NewEntity(&c0, &c1, &c2, &c3, &c4, &c5, &c6, &c7, &c8, &c9)
					}
					return n
				}
			})
			pairedWithArk(b, n, ours, arks)
		})
		b.Run(fmt.Sprintf("op=batch/n=%d", n), func(b *testing.B) {
			ours := timedSetup(func() func() int {
				w := ecs.NewWorld()
				cs := ids(w)
				return func() int {
					if err := w.SpawnBatchIDs(n, cs, nil); err != nil {
						b.Fatal(err)
					}
					return w.Len()
				}
			})
			arks := timedSetup(func() func() int {
				w := ark.NewWorld()
				m := ark.NewMap10[k0, k1, k2, k3, k4, k5, k6, k7, k8, k9](w)
				var c0 k0
				var c1 k1
				var c2 k2
				var c3 k3
				var c4 k4
				var c5 k5
				var c6 k6
				var c7 k7
				var c8 k8
				var c9 k9
				return func() int {
					m.NewBatch(n, &c0, &c1, &c2, &c3, &c4, &c5, &c6, &c7, &c8, &c9)
					return n
				}
			})
			pairedWithArk(b, n, ours, arks)
		})
	}
}
