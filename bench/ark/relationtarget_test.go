package ark

import (
	"fmt"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	ark "github.com/mlange-42/ark/ecs"
)

// targetHolders is how many entities hold the relation in
// BenchmarkRelationTarget, whatever the number of targets.
const targetHolders = 100_000

// BenchmarkRelationTarget: the holders of one target among T targets
// (T = 2 to 10,000, the same 100,000 holders in all), moved by a query run
// over that target: ours a query's AllOf through the relation, ark's a
// filter's Query with the relation's target. The holders were spawned one
// at a time, each to the next target in turn, as a game's entities come
// and go, so a target's holders are not neighbours in spawn order. Each
// op is one target's run, the targets taken in turn; ns/entity is per
// holder visited.
func BenchmarkRelationTarget(b *testing.B) {
	for _, t := range []int{2, 10, 100, 1000, 10_000} {
		aw := ark.NewWorld(1024)
		ew := ecs.NewWorld()
		amap := ark.NewMap3[position, velocity, arkHome](aw)
		emap := ecs.NewMap2[position, velocity](ew)
		home := ecs.NewRel[ecsHome](ew)
		ahives, ehives := make([]ark.Entity, t), make([]ecs.Entity, t)
		for i := range t {
			ahives[i], ehives[i] = aw.NewEntity(), ew.Spawn()
		}
		for i := range targetHolders {
			h := i % t
			v := velocity{X: float64(h), Y: 1}
			amap.NewEntity(&position{}, &v, &arkHome{}, ark.Rel[arkHome](ahives[h]))
			e := emap.Spawn(position{}, v)
			must(b, home.Add(e, ehives[h], ecsHome{}))
		}
		afilter := ark.NewFilter2[position, velocity](aw).With(ark.C[arkHome]())
		equery := ecs.NewQuery2[position, velocity](ew, ecs.Mut[position]())
		arkMove := func(h int) (sum float64) {
			q := afilter.Query(ark.Rel[arkHome](ahives[h]))
			for q.Next() {
				p, v := q.Get()
				p.X += v.X
				sum += p.X
			}
			return sum
		}
		ecsMove := func(h int) (sum float64) {
			for p, v := range equery.AllOf(home.Of(ehives[h])) {
				p.X += v.X
				sum += p.X
			}
			return sum
		}
		for h := range t {
			if a, e := arkMove(h), ecsMove(h); a != e {
				b.Fatalf("the engines moved hive %d's holders apart: %v and %v", h, a, e)
			}
		}
		per := targetHolders / t
		b.Run(fmt.Sprintf("T=%d", t), func(b *testing.B) {
			var ho, ha int
			reps := max(1, 4096/per) // a run of a few holders is too short to time alone
			ours := timed(func() {
				for range reps {
					ecsMove(ho)
					ho = (ho + 1) % t
				}
			})
			arks := timed(func() {
				for range reps {
					arkMove(ha)
					ha = (ha + 1) % t
				}
			})
			pairedWithArk(b, per*reps, ours, arks)
		})
	}
}
