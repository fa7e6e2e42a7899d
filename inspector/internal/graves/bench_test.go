package graves

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/internal/benchpair"
)

type pos struct{ X, Y float32 }
type vel struct{ X, Y float32 }
type energy struct{ Value float32 }
type age struct{ Frames int }
type herbivore struct{}

// BenchmarkBury is what keeping the last state costs a despawn: 256
// entities of the demo's five components (one a tag) despawned a frame,
// with a yard keeping them, against the same despawns with none.
// ns/entity.
func BenchmarkBury(b *testing.B) {
	const n = MaxPerFrame
	world := func(withYard bool) (func(), *ecs.World) {
		w := ecs.NewWorld()
		if withYard {
			New(w, noOne)
		}
		spawn := ecs.NewMap5[pos, vel, energy, age, herbivore](w)
		ents := make([]ecs.Entity, n)
		return func() {
			for i := range ents {
				ents[i] = spawn.Spawn(pos{1, 2}, vel{3, 4}, energy{5}, age{6}, herbivore{})
			}
			for _, e := range ents {
				if err := w.Despawn(e); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Tick(); err != nil {
				b.Fatal(err)
			}
		}, w
	}
	subject, sw := world(true)
	baseline, bw := world(false)
	subject()
	baseline()
	if sw.Len() != bw.Len() || sw.Len() != 0 {
		b.Fatalf("the worlds differ: %d and %d entities", sw.Len(), bw.Len())
	}
	benchpair.Run(b, n, "ns/entity", subject, baseline)
}
