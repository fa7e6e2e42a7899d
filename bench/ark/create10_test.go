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
				m, v := arkMap10()
				return func() int {
					for range n {
						m.NewEntity(&v.c0, &v.c1, &v.c2, &v.c3, &v.c4, &v.c5, &v.c6, &v.c7, &v.c8, &v.c9)
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
				m, v := arkMap10()
				return func() int {
					m.NewBatch(n, &v.c0, &v.c1, &v.c2, &v.c3, &v.c4, &v.c5, &v.c6, &v.c7, &v.c8, &v.c9)
					return n
				}
			})
			pairedWithArk(b, n, ours, arks)
		})
	}
}

// tenValues holds one value of each of the ten components.
type tenValues struct {
	c0 k0
	c1 k1
	c2 k2
	c3 k3
	c4 k4
	c5 k5
	c6 k6
	c7 k7
	c8 k8
	c9 k9
}

// arkMap10 is ark's map of the ten components in a fresh world, and the
// values its entities are made with.
func arkMap10() (*ark.Map10[k0, k1, k2, k3, k4, k5, k6, k7, k8, k9], *tenValues) {
	return ark.NewMap10[k0, k1, k2, k3, k4, k5, k6, k7, k8, k9](ark.NewWorld()), &tenValues{}
}
