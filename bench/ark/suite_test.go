package ark

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	ark "github.com/mlange-42/ark/ecs"
)

// The public suite's workloads (github.com/mlange-42/go-ecs-benchmarks),
// the same work per round as its code, ours and ark's in one loop with the
// order alternating (pairedRounds). engine=ecs is ours one entity at a
// time against ark's; engine=ecs-batch is ours in batches (or a table at a
// time, for queries) against ark's batches. Setup and the suite's untimed
// resets are not timed.

// Ten more components of the suite's size, and its N.
type (
	sc1  struct{ X, Y float64 }
	sc2  struct{ X, Y float64 }
	sc3  struct{ X, Y float64 }
	sc4  struct{ X, Y float64 }
	sc5  struct{ X, Y float64 }
	sc6  struct{ X, Y float64 }
	sc7  struct{ X, Y float64 }
	sc8  struct{ X, Y float64 }
	sc9  struct{ X, Y float64 }
	sc10 struct{ X, Y float64 }
)

var suiteN = []int{1, 16, 1024, 64 * 1024, million}

// round is one timed round of a workload on one engine: how long its timed
// part took, and an outcome both engines must agree on (entities alive, a
// sum), checked on the first round.
type round func() (time.Duration, float64)

// suiteCase prepares one engine's side of a workload at n.
type suiteCase func(b *testing.B, n int) round

type workload struct {
	name string
	ns   []int
	// one and batch: ours and ark's, per entity and in batches; batch is
	// nil where the suite has no batch form.
	one, batch [2]suiteCase
}

// BenchmarkSuite: BenchmarkSuite/<workload>/n=<N>/engine=<ecs|ecs-batch>,
// each ours interleaved with ark's same kind; x-ark is ours over ark's.
func BenchmarkSuite(b *testing.B) {
	for _, w := range suiteWorkloads() {
		ns := w.ns
		if ns == nil {
			ns = suiteN
		}
		for _, n := range ns {
			for _, kind := range []struct {
				engine string
				cases  [2]suiteCase
			}{{"ecs", w.one}, {"ecs-batch", w.batch}} {
				if kind.cases[0] == nil {
					continue
				}
				b.Run(fmt.Sprintf("%s/n=%d/engine=%s", w.name, n, kind.engine), func(b *testing.B) {
					pairedRounds(b, n, kind.cases[0](b, n), kind.cases[1](b, n))
				})
			}
		}
	}
}

// pairedRounds runs ours and ark's rounds alternately, the order flipping
// each iteration, after checking once that they agree on the outcome. A
// round of fewer than 4,096 entities is repeated to make a block worth
// timing (time.Now costs tens of ns, alike for both).
func pairedRounds(b *testing.B, n int, ours, arks round) {
	_, got := ours()
	if _, want := arks(); got != want {
		b.Fatalf("the engines disagree before the loop: ours %v, ark's %v", got, want)
	}
	reps := max(1, 4096/n)
	block := func(r round) time.Duration {
		var t time.Duration
		for range reps {
			d, _ := r()
			t += d
		}
		return t
	}
	var tOurs, tArk time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			tOurs += block(ours)
			tArk += block(arks)
		} else {
			tArk += block(arks)
			tOurs += block(ours)
		}
		i++
	}
	per := float64(i * reps * n)
	b.ReportMetric(float64(tOurs)/float64(tArk), "x-ark")
	b.ReportMetric(float64(tOurs.Nanoseconds())/per, "ns/entity")
	b.ReportMetric(float64(tArk.Nanoseconds())/per, "ark-ns/entity")
}

// timedOnly is a round with nothing untimed: the whole of f is timed.
func timedOnly(f func() float64) round {
	return func() (time.Duration, float64) {
		start := time.Now()
		v := f()
		return time.Since(start), v
	}
}

// withReset is a round whose timed part is f, then reset, untimed.
func withReset(f func(), reset func() float64) round {
	return func() (time.Duration, float64) {
		start := time.Now()
		f()
		d := time.Since(start)
		return d, reset()
	}
}

func must(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}

func ecsIDs[T any](w *ecs.World) ecs.ComponentID { return ecs.ComponentIDOf[T](w) }

// tenIDs are the ids of sc1..sc10 in w.
func tenIDs(w *ecs.World) []ecs.ComponentID {
	return []ecs.ComponentID{ecsIDs[sc1](w), ecsIDs[sc2](w), ecsIDs[sc3](w), ecsIDs[sc4](w), ecsIDs[sc5](w),
		ecsIDs[sc6](w), ecsIDs[sc7](w), ecsIDs[sc8](w), ecsIDs[sc9](w), ecsIDs[sc10](w)}
}

func arkTenIDs(w *ark.World) []ark.ID {
	return []ark.ID{ark.ComponentID[sc1](w), ark.ComponentID[sc2](w), ark.ComponentID[sc3](w), ark.ComponentID[sc4](w), ark.ComponentID[sc5](w),
		ark.ComponentID[sc6](w), ark.ComponentID[sc7](w), ark.ComponentID[sc8](w), ark.ComponentID[sc9](w), ark.ComponentID[sc10](w)}
}

func arkMapTen(w *ark.World) *ark.Map10[sc1, sc2, sc3, sc4, sc5, sc6, sc7, sc8, sc9, sc10] {
	return ark.NewMap10[sc1, sc2, sc3, sc4, sc5, sc6, sc7, sc8, sc9, sc10](w)
}

// all is the filter every entity passes.
var all = ecs.Filter{}

func suiteWorkloads() []workload {
	return []workload{
		{name: "query2comp", one: [2]suiteCase{ecsQuery2(false, 0), arkQuery2(false, 0)}, batch: [2]suiteCase{ecsQuery2(true, 0), arkQuery2(true, 0)}},
		{name: "query32arch", one: [2]suiteCase{ecsQuery2(false, 32), arkQuery2(false, 32)}, batch: [2]suiteCase{ecsQuery2(true, 32), arkQuery2(true, 32)}},
		{name: "query256arch", one: [2]suiteCase{ecsQuery2(false, 256), arkQuery2(false, 256)}, batch: [2]suiteCase{ecsQuery2(true, 256), arkQuery2(true, 256)}},
		{name: "random", one: [2]suiteCase{ecsRandom, arkRandom}, batch: [2]suiteCase{ecsRandomAll, arkRandom}},
		{name: "create2comp", one: [2]suiteCase{ecsCreate2(false), arkCreate2(false)}, batch: [2]suiteCase{ecsCreate2(true), arkCreate2(true)}},
		{name: "create2comp_alloc", one: [2]suiteCase{ecsCreate2Alloc(false), arkCreate2Alloc(false)}, batch: [2]suiteCase{ecsCreate2Alloc(true), arkCreate2Alloc(true)}},
		{name: "create10comp", one: [2]suiteCase{ecsCreate10(false), arkCreate10(false)}, batch: [2]suiteCase{ecsCreate10(true), arkCreate10(true)}},
		{name: "add_remove", one: [2]suiteCase{ecsAddRemoveCase(false, false), arkAddRemoveCase(false, false)}, batch: [2]suiteCase{ecsAddRemoveCase(true, false), arkAddRemoveCase(true, false)}},
		{name: "add_remove_large", one: [2]suiteCase{ecsAddRemoveCase(false, true), arkAddRemoveCase(false, true)}, batch: [2]suiteCase{ecsAddRemoveCase(true, true), arkAddRemoveCase(true, true)}},
		{name: "delete2comp", one: [2]suiteCase{ecsDelete(false, false), arkDelete(false, false)}, batch: [2]suiteCase{ecsDelete(true, false), arkDelete(true, false)}},
		{name: "delete10comp", one: [2]suiteCase{ecsDelete(false, true), arkDelete(false, true)}, batch: [2]suiteCase{ecsDelete(true, true), arkDelete(true, true)}},
		{name: "new_world", ns: []int{1}, one: [2]suiteCase{
			func(*testing.B, int) round {
				return timedOnly(func() float64 { return float64(ecs.NewWorld().Len()) })
			},
			func(*testing.B, int) round {
				return timedOnly(func() float64 { ark.NewWorld(); return 0 })
			},
		}},
	}
}

// withBits is base and the extra components whose bit is set in i: the
// suite's way of spreading entities over archetypes.
func withBits[ID any](base, extra []ID, i int) []ID {
	for j, id := range extra {
		if i&(1<<j) != 0 {
			base = append(base, id)
		}
	}
	return base
}

// ecsQuery2 is query2comp (arch 0: n*10 entities of Position alone beside
// the n of Position and Velocity), query32arch (32: the n spread over up to
// 32 tables by five more components) or query256arch (256: n of Position
// and Velocity, 4n of Position and up to eight more): Position += Velocity
// over Position and Velocity, entity by entity or a table at a time. The
// outcome is the sum of Position after the round.
func ecsQuery2(tables bool, arch int) suiteCase {
	return func(b *testing.B, n int) round {
		w := ecs.NewWorld()
		pos, vel := ecsIDs[position](w), ecsIDs[velocity](w)
		extra := tenIDs(w)
		vm := ecs.NewMap[velocity](w)
		switch arch {
		case 0:
			ecs.NewMap[position](w).SpawnBatch(n*10, nil)
			ecs.NewMap2[position, velocity](w).SpawnBatch(n, func(_ int, _ ecs.Entity, _ *position, v *velocity) { *v = velocity{1, 1} })
		case 32:
			for i := range n {
				e, err := w.SpawnIDs(withBits([]ecs.ComponentID{pos, vel}, extra[:5], i)...)
				must(b, err)
				*vm.Get(e) = velocity{1, 1}
			}
		case 256:
			ecs.NewMap2[position, velocity](w).SpawnBatch(n, func(_ int, _ ecs.Entity, _ *position, v *velocity) { *v = velocity{1, 1} })
			for i := range n * 4 {
				_, err := w.SpawnIDs(withBits([]ecs.ComponentID{pos}, extra[:8], i)...)
				must(b, err)
			}
		}
		q := ecs.NewQuery2[position, velocity](w, ecs.Mut[position]())
		run := ecsMoveOnes
		if tables {
			run = ecsMoveTables
		}
		return timedOnly(func() float64 { return run(q) })
	}
}

//go:noinline
func ecsMoveOnes(q *ecs.Query2[position, velocity]) float64 {
	it := q.Iter()
	s := 0.0
	for it.Next() {
		s += stepSum(it.Get())
	}
	return s
}

//go:noinline
func ecsMoveTables(q *ecs.Query2[position, velocity]) float64 {
	it := q.Iter()
	s := 0.0
	for it.NextTable() {
		s += stepSumColumns(it.Columns())
	}
	return s
}

func arkQuery2(tables bool, arch int) suiteCase {
	return func(b *testing.B, n int) round {
		w := ark.NewWorld(1024)
		pos, vel := ark.ComponentID[position](w), ark.ComponentID[velocity](w)
		extra := arkTenIDs(w)
		vm := ark.NewMap[velocity](w)
		switch arch {
		case 0:
			ark.NewMap1[position](w).NewBatchFn(n*10, nil)
			ark.NewMap2[position, velocity](w).NewBatchFn(n, func(_ ark.Entity, _ *position, v *velocity) { *v = velocity{1, 1} })
		case 32:
			for i := range n {
				e := w.Unsafe().NewEntity(withBits([]ark.ID{pos, vel}, extra[:5], i)...)
				*vm.Get(e) = velocity{1, 1}
			}
		case 256:
			ark.NewMap2[position, velocity](w).NewBatchFn(n, func(_ ark.Entity, _ *position, v *velocity) { *v = velocity{1, 1} })
			for i := range n * 4 {
				w.Unsafe().NewEntity(withBits([]ark.ID{pos}, extra[:8], i)...)
			}
		}
		f := ark.NewFilter2[position, velocity](w)
		run := arkMoveOnes
		if tables {
			run = arkMoveTables
		}
		return timedOnly(func() float64 { return run(f) })
	}
}

//go:noinline
func arkMoveOnes(f *ark.Filter2[position, velocity]) float64 {
	q := f.Query()
	s := 0.0
	for q.Next() {
		s += stepSum(q.Get())
	}
	return s
}

//go:noinline
func arkMoveTables(f *ark.Filter2[position, velocity]) float64 {
	q := f.Query()
	s := 0.0
	for q.NextTable() {
		s += stepSumColumns(q.GetColumns())
	}
	return s
}

// ecsRandom: n entities of Position, made one by one, read by handle in a
// random order with At (ark's Get: a pointer, a panic for a dead handle);
// the outcome is the sum of X read.
func ecsRandom(b *testing.B, n int) round {
	w := ecs.NewWorld()
	m := ecs.NewMap[position](w)
	ents := make([]ecs.Entity, 0, n)
	for i := range n {
		ents = append(ents, m.Spawn(position{X: float64(i)}))
	}
	rand.New(rand.NewPCG(7, 8)).Shuffle(n, func(i, j int) { ents[i], ents[j] = ents[j], ents[i] })
	return timedOnly(func() float64 { return ecsAtAll(m, ents) })
}

// ecsRandomAll is random with the handles read in one call (Map.ReadAll)
// into a reused list of pointers, then summed.
func ecsRandomAll(b *testing.B, n int) round {
	w := ecs.NewWorld()
	m := ecs.NewMap[position](w)
	ents := make([]ecs.Entity, 0, n)
	for i := range n {
		ents = append(ents, m.Spawn(position{X: float64(i)}))
	}
	rand.New(rand.NewPCG(7, 8)).Shuffle(n, func(i, j int) { ents[i], ents[j] = ents[j], ents[i] })
	ptrs := make([]*position, 0, n)
	return timedOnly(func() float64 {
		ptrs = m.ReadAll(ents, ptrs[:0])
		s := 0.0
		for _, p := range ptrs {
			s += p.X
		}
		return s
	})
}

func arkRandom(b *testing.B, n int) round {
	w := ark.NewWorld(1024)
	m := ark.NewMap[position](w)
	ents := make([]ark.Entity, 0, n)
	for i := range n {
		ents = append(ents, m.NewEntity(&position{X: float64(i)}))
	}
	rand.New(rand.NewPCG(7, 8)).Shuffle(n, func(i, j int) { ents[i], ents[j] = ents[j], ents[i] })
	return timedOnly(func() float64 { return arkGetSum(m, ents) })
}

//go:noinline
func arkGetSum(m *ark.Map[position], ents []ark.Entity) float64 {
	s := 0.0
	for _, e := range ents {
		s += m.Get(e).X
	}
	return s
}

// ecsCreate2: n entities of Position and Velocity made (and their handles
// kept, as the suite does) into a world that had held n; the reset
// despawns them, untimed. The outcome is the entities made.
func ecsCreate2(batch bool) suiteCase {
	return func(b *testing.B, n int) round {
		w := ecs.NewWorld()
		m := ecs.NewMap2[position, velocity](w)
		m.SpawnBatch(n, nil)
		w.DespawnWhere(all)
		ents := make([]ecs.Entity, 0, n)
		return withReset(func() {
			if batch {
				m.SpawnBatch(n, nil)
				return
			}
			for range n {
				ents = append(ents, m.Spawn(position{}, velocity{}))
			}
		}, func() float64 {
			made := w.Len()
			w.DespawnWhere(all)
			ents = ents[:0]
			return float64(made)
		})
	}
}

func arkCreate2(batch bool) suiteCase {
	return func(b *testing.B, n int) round {
		w := ark.NewWorld(1024)
		m := ark.NewMap2[position, velocity](w)
		f := ark.NewFilter0(w)
		m.NewBatchFn(n, nil)
		w.RemoveEntities(f.Batch(), nil)
		ents := make([]ark.Entity, 0, n)
		return withReset(func() {
			if batch {
				m.NewBatchFn(n, nil)
				return
			}
			for range n {
				ents = append(ents, m.NewEntityFn(nil))
			}
		}, func() float64 {
			made := arkCount(f)
			w.RemoveEntities(f.Batch(), nil)
			ents = ents[:0]
			return float64(made)
		})
	}
}

func arkCount(f *ark.Filter0) int {
	q := f.Query()
	n := q.Count()
	q.Close()
	return n
}

// ecsCreate2Alloc: n entities of Position and Velocity made in a fresh
// world (made untimed), its storage growing as they come.
func ecsCreate2Alloc(batch bool) suiteCase {
	return func(b *testing.B, n int) round {
		return func() (time.Duration, float64) {
			w := ecs.NewWorld()
			m := ecs.NewMap2[position, velocity](w)
			start := time.Now()
			if batch {
				m.SpawnBatch(n, nil)
			} else {
				for range n {
					m.Spawn(position{}, velocity{})
				}
			}
			return time.Since(start), float64(w.Len())
		}
	}
}

func arkCreate2Alloc(batch bool) suiteCase {
	return func(b *testing.B, n int) round {
		return func() (time.Duration, float64) {
			w := ark.NewWorld(1024)
			m := ark.NewMap2[position, velocity](w)
			start := time.Now()
			if batch {
				m.NewBatchFn(n, nil)
			} else {
				for range n {
					m.NewEntityFn(nil)
				}
			}
			d := time.Since(start)
			return d, float64(arkCount(ark.NewFilter0(w)))
		}
	}
}

// ecsCreate10: create2comp with the ten components sc1..sc10.
func ecsCreate10(batch bool) suiteCase {
	return func(b *testing.B, n int) round {
		w := ecs.NewWorld()
		ids := tenIDs(w)
		must(b, w.SpawnBatchIDs(n, ids, nil))
		w.DespawnWhere(all)
		ents := make([]ecs.Entity, 0, n)
		return withReset(func() {
			if batch {
				must(b, w.SpawnBatchIDs(n, ids, nil))
				return
			}
			for range n {
				e, err := w.SpawnIDs(ids...)
				if err != nil {
					b.Fatal(err)
				}
				ents = append(ents, e)
			}
		}, func() float64 {
			made := w.Len()
			w.DespawnWhere(all)
			ents = ents[:0]
			return float64(made)
		})
	}
}

func arkCreate10(batch bool) suiteCase {
	return func(b *testing.B, n int) round {
		w := ark.NewWorld(1024)
		m := arkMapTen(w)
		f := ark.NewFilter0(w)
		m.NewBatchFn(n, nil)
		w.RemoveEntities(f.Batch(), nil)
		ents := make([]ark.Entity, 0, n)
		return withReset(func() {
			if batch {
				m.NewBatchFn(n, nil)
				return
			}
			for range n {
				ents = append(ents, m.NewEntityFn(nil))
			}
		}, func() float64 {
			made := arkCount(f)
			w.RemoveEntities(f.Batch(), nil)
			ents = ents[:0]
			return float64(made)
		})
	}
}

// ecsAddRemoveCase: n entities of Position (and, large, sc1..sc10) get
// Velocity and lose it again, one by one or in two batches. The outcome is
// how many have Position and no Velocity after the round.
func ecsAddRemoveCase(batch, large bool) suiteCase {
	return func(b *testing.B, n int) round {
		w := ecs.NewWorld()
		pos, vel := ecsIDs[position](w), ecsIDs[velocity](w)
		ids := []ecs.ComponentID{pos}
		if large {
			ids = append(ids, tenIDs(w)...)
		}
		ents := make([]ecs.Entity, 0, n)
		must(b, w.SpawnBatchIDs(n, ids, func(_ int, es []ecs.Entity) { ents = append(ents, es...) }))
		vm := ecs.NewMap[velocity](w)
		withPos, withBoth := ecs.Filter{With: []ecs.ComponentID{pos}}, ecs.Filter{With: []ecs.ComponentID{pos, vel}}
		lacking := ecs.Filter{With: []ecs.ComponentID{pos}, Without: []ecs.ComponentID{vel}}
		run := func() {
			if batch {
				_, err := vm.AddWhere(withPos, velocity{})
				must(b, err)
				_, err = vm.RemoveWhere(withBoth)
				must(b, err)
				return
			}
			ecsAddRemoveEach(b, vm, ents)
		}
		run() // once for fairness, as the suite does
		return withReset(run, func() float64 {
			_, n := w.Inspect().Scan(lacking, 0, 0)
			return float64(n)
		})
	}
}

//go:noinline
func ecsAddRemoveEach(b *testing.B, vm *ecs.Map[velocity], ents []ecs.Entity) {
	for _, e := range ents {
		if err := vm.Add(e, velocity{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, e := range ents {
		if err := vm.Remove(e); err != nil {
			b.Fatal(err)
		}
	}
}

func arkAddRemoveCase(batch, large bool) suiteCase {
	return func(b *testing.B, n int) round {
		w := ark.NewWorld(1024)
		pos := ark.ComponentID[position](w)
		ids := []ark.ID{pos}
		if large {
			ids = append(ids, arkTenIDs(w)...)
		}
		ents := make([]ark.Entity, 0, n)
		for range n {
			ents = append(ents, w.Unsafe().NewEntity(ids...))
		}
		vm := ark.NewMap[velocity](w)
		withPos := ark.NewFilter1[position](w)
		withBoth := ark.NewFilter2[position, velocity](w)
		lacking := ark.NewFilter1[position](w).Without(ark.C[velocity]())
		run := func() {
			if batch {
				vm.AddBatchFn(withPos.Batch(), nil)
				vm.RemoveBatch(withBoth.Batch(), nil)
				return
			}
			arkAddRemoveEach(vm, ents)
		}
		run()
		return withReset(run, func() float64 {
			q := lacking.Query()
			n := q.Count()
			q.Close()
			return float64(n)
		})
	}
}

//go:noinline
func arkAddRemoveEach(vm *ark.Map[velocity], ents []ark.Entity) {
	for _, e := range ents {
		vm.AddFn(e, nil)
	}
	for _, e := range ents {
		vm.Remove(e)
	}
}

// ecsDelete: n entities of Position and Velocity (or, ten, sc1..sc10)
// despawned one by one or in a batch; the reset makes them again, untimed.
// The outcome is the entities left (none).
func ecsDelete(batch, ten bool) suiteCase {
	return func(b *testing.B, n int) round {
		w := ecs.NewWorld()
		ids := []ecs.ComponentID{ecsIDs[position](w), ecsIDs[velocity](w)}
		if ten {
			ids = tenIDs(w)
		}
		ents := make([]ecs.Entity, 0, n)
		refill := func() {
			ents = ents[:0]
			must(b, w.SpawnBatchIDs(n, ids, func(_ int, es []ecs.Entity) { ents = append(ents, es...) }))
		}
		refill()
		f := ecs.Filter{With: ids}
		return withReset(func() {
			if batch {
				w.DespawnWhere(f)
				return
			}
			ecsDespawnEach(b, w, ents)
		}, func() float64 {
			left := w.Len()
			refill()
			return float64(left)
		})
	}
}

//go:noinline
func ecsDespawnEach(b *testing.B, w *ecs.World, ents []ecs.Entity) {
	for _, e := range ents {
		if err := w.Despawn(e); err != nil {
			b.Fatal(err)
		}
	}
}

func arkDelete(batch, ten bool) suiteCase {
	return func(b *testing.B, n int) round {
		w := ark.NewWorld(1024)
		ids := []ark.ID{ark.ComponentID[position](w), ark.ComponentID[velocity](w)}
		if ten {
			ids = arkTenIDs(w)
		}
		all := ark.NewFilter0(w)
		ents := make([]ark.Entity, 0, n)
		refill := func() {
			ents = ents[:0]
			for range n {
				ents = append(ents, w.Unsafe().NewEntity(ids...))
			}
		}
		refill()
		return withReset(func() {
			if batch {
				w.RemoveEntities(all.Batch(), nil)
				return
			}
			for _, e := range ents {
				w.RemoveEntity(e)
			}
		}, func() float64 {
			left := arkCount(all)
			refill()
			return float64(left)
		})
	}
}
