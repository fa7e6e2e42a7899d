package ark

import (
	"fmt"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	ark "github.com/mlange-42/ark/ecs"
)

// The relation each engine's bees point at their hive with.
type (
	arkHome struct{ ark.RelationMarker }
	ecsHome struct{ ecs.Relation }
)

// hives is how many targets the bees are spread over.
const hives = 10

// BenchmarkRelations: bees spread over ten hives, each with position and
// velocity and a relation to its hive. op=query: every hive's bees moved
// by a query run over that hive (ours a query's AllOf through the
// relation's index, ark's a filter's Query with the relation as target);
// op=spawn: bees spawned in batches with their hive as the target (ours a
// map's To(hive).SpawnBatch, ark's NewBatchFn with Rel), into a world
// reset untimed. Each against ark in the same loop.
func BenchmarkRelations(b *testing.B) {
	for _, n := range []int{1000, 64 << 10} {
		aw := ark.NewWorld(1024)
		ew := ecs.NewWorld()
		amap := ark.NewMap3[position, velocity, arkHome](aw)
		emap := ecs.NewMap3[position, velocity, ecsHome](ew)
		var ahives []ark.Entity
		var ehives []ecs.Entity
		for range hives {
			ahives, ehives = append(ahives, aw.NewEntity()), append(ehives, ew.Spawn())
		}
		for h := range hives {
			amap.NewBatchFn(n/hives, func(_ ark.Entity, _ *position, v *velocity, _ *arkHome) { v.X = float64(h) }, ark.Rel[arkHome](ahives[h]))
			emap.To(ehives[h]).SpawnBatch(n/hives, func(_ int, _ ecs.Entity, _ *position, v *velocity, _ *ecsHome) { v.X = float64(h) })
		}
		afilter := ark.NewFilter2[position, velocity](aw).With(ark.C[arkHome]())
		home := ecs.NewRel[ecsHome](ew)
		equery := ecs.NewQuery2[position, velocity](ew, ecs.Mut[position]())
		arkMove := func() (sum float64) {
			for _, h := range ahives {
				q := afilter.Query(ark.Rel[arkHome](h))
				for q.Next() {
					p, v := q.Get()
					p.X += v.X
					sum += p.X
				}
			}
			return sum
		}
		ecsMove := func() (sum float64) {
			for _, h := range ehives {
				for p, v := range equery.AllOf(home.Of(h)) {
					p.X += v.X
					sum += p.X
				}
			}
			return sum
		}
		if a, e := arkMove(), ecsMove(); a != e {
			b.Fatalf("the engines moved their bees apart: %v and %v", a, e)
		}
		b.Run(fmt.Sprintf("op=query/n=%d", n), func(b *testing.B) {
			pairedWithArk(b, n, timed(func() { ecsMove() }), timed(func() { arkMove() }))
		})
	}
	for _, n := range []int{1000, 64 << 10} {
		b.Run(fmt.Sprintf("op=spawn/n=%d", n), func(b *testing.B) {
			ew, aw := ecs.NewWorld(), ark.NewWorld(1024)
			emap, amap := ecs.NewMap3[position, velocity, ecsHome](ew), ark.NewMap3[position, velocity, arkHome](aw)
			ehive, ahive := ew.Spawn(), aw.NewEntity()
			home := ecs.NewRel[ecsHome](ew)
			ours := func() time.Duration {
				start := time.Now()
				emap.To(ehive).SpawnBatch(n, nil)
				took := time.Since(start)
				if home.Count(ehive) != n {
					b.Fatalf("%d bees of the hive", home.Count(ehive))
				}
				ew.DespawnWhere(ecs.Filter{Related: home.Of(ehive)})
				return took
			}
			afilter := ark.NewFilter1[arkHome](aw)
			arks := func() time.Duration {
				start := time.Now()
				amap.NewBatchFn(n, nil, ark.Rel[arkHome](ahive))
				took := time.Since(start)
				aw.RemoveEntities(afilter.Batch(ark.Rel[arkHome](ahive)), nil)
				return took
			}
			pairedWithArk(b, n, ours, arks)
		})
	}
}
