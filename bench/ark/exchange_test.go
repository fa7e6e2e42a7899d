package ark

import (
	"fmt"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	ark "github.com/mlange-42/ark/ecs"
)

// The states an exchange switches between.
type (
	foraging  struct{ Patch int }
	returning struct{ Load float64 }
)

// BenchmarkExchange: a state switch on each entity one at a time (add one
// component and remove another in one move: Map.Exchange, ark's
// Exchange1 with Removes), there and back each round, on entities of
// position and velocity, against ark in the same loop.
func BenchmarkExchange(b *testing.B) {
	for _, n := range []int{1000, 64 << 10} {
		aw, aents := arkWorld(n)
		ew, eents := ecsWorld(n)
		afor, aret := ark.NewMap[foraging](aw), ark.NewMap[returning](aw)
		for _, e := range aents {
			afor.Add(e, &foraging{Patch: 1})
		}
		toReturning := ark.NewExchange1[returning](aw).Removes(ark.C[foraging]())
		toForaging := ark.NewExchange1[foraging](aw).Removes(ark.C[returning]())
		efor, eret := ecs.NewMap[foraging](ew), ecs.NewMap[returning](ew)
		for _, e := range eents {
			if err := efor.Add(e, foraging{Patch: 1}); err != nil {
				b.Fatal(err)
			}
		}
		forID, retID := efor.ID(), eret.ID()
		arkRound := func() {
			for _, e := range aents {
				toReturning.Exchange(e, &returning{Load: 1})
			}
			for _, e := range aents {
				toForaging.Exchange(e, &foraging{Patch: 2})
			}
		}
		ecsRound := func() {
			for _, e := range eents {
				if err := eret.Exchange(e, returning{Load: 1}, forID); err != nil {
					b.Fatal(err)
				}
			}
			for _, e := range eents {
				if err := efor.Exchange(e, foraging{Patch: 2}, retID); err != nil {
					b.Fatal(err)
				}
			}
		}
		arkRound()
		ecsRound()
		for i := range n { // both hold every entity foraging patch 2, none returning
			if a, o := afor.Get(aents[i]), efor.Read(eents[i]); a == nil || o == nil || a.Patch != 2 || o.Patch != 2 || aret.Has(aents[i]) || eret.Has(eents[i]) {
				b.Fatalf("entity %d after a round: ark %v, ecs %v", i, a, o)
			}
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			pairedWithArk(b, 2*n, timed(ecsRound), timed(arkRound))
		})
	}
}
