package ark

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	ark "github.com/mlange-42/ark/ecs"
)

// The workloads of ecs/bench_test.go, through both engines in one process.
// Each measured loop is its own noinline function, called from b.Loop, for
// both engines alike. ecs runs with change tracking on (its only mode);
// ark has none.

type position struct{ X, Y float64 }
type velocity struct{ X, Y float64 }
type tag struct{}

const (
	dt      = 1.0 / 60
	million = 1_000_000
)

// move is one entity's step, the work of every timed move loop whatever
// the engine (inlined: a loop through it costs what the loop written out
// costs).
func move(p *position, v *velocity) {
	p.X += v.X * dt
	p.Y += v.Y * dt
}

// moveColumns steps a table's columns.
func moveColumns(ps []position, vs []velocity) {
	vs = vs[:len(ps)]
	for i := range ps {
		move(&ps[i], &vs[i])
	}
}

// stepSum moves p by v over one unit of time and returns where it went,
// X+Y: the suite's move, whose sum says both engines did the same work.
func stepSum(p *position, v *velocity) float64 {
	p.X += v.X
	p.Y += v.Y
	return p.X + p.Y
}

// stepSumColumns is stepSum over a table's columns.
func stepSumColumns(ps []position, vs []velocity) float64 {
	vs = vs[:len(ps)]
	s := 0.0
	for i := range ps {
		s += stepSum(&ps[i], &vs[i])
	}
	return s
}

func perEntity(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
}

// engines runs one sub-benchmark per engine, ark first.
func engines(b *testing.B, name string, arkRun, ecsRun func(b *testing.B)) {
	b.Run(name+"/engine=ark", arkRun)
	b.Run(name+"/engine=ecs", ecsRun)
}

// each times run over and over on the same state, n entities a run.
func each(n int, run func()) func(b *testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			run()
		}
		perEntity(b, n)
	}
}

// fresh times run on a new state from setup each time, setup untimed.
func fresh[S any](n int, setup func() S, run func(S)) func(b *testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			st := setup()
			b.StartTimer()
			run(st)
		}
		perEntity(b, n)
	}
}

//go:noinline
func arkMoveNext(f *ark.Filter2[position, velocity]) {
	q := f.Query()
	for q.Next() {
		move(q.Get())
	}
}

//go:noinline
func ecsMoveAll(q *ecs.Query2[position, velocity]) {
	for p, v := range q.All() {
		move(p, v)
	}
}

//go:noinline
func ecsMoveNext(q *ecs.Query2[position, velocity]) {
	it := q.Iter()
	for it.Next() {
		move(it.Get())
	}
}

//go:noinline
func arkMoveColumns(f *ark.Filter2[position, velocity]) {
	q := f.Query()
	for q.NextTable() {
		moveColumns(q.GetColumns())
	}
}

//go:noinline
func ecsMoveColumns(q *ecs.Query2[position, velocity]) {
	it := q.Iter()
	for it.NextTable() {
		moveColumns(it.Columns())
	}
}

func arkWorld(n int) (*ark.World, []ark.Entity) {
	w := ark.NewWorld(1024)
	ents := make([]ark.Entity, 0, n)
	ark.NewMap2[position, velocity](w).NewBatchFn(n, func(e ark.Entity, p *position, v *velocity) {
		v.X = 1
		ents = append(ents, e)
	})
	return w, ents
}

func ecsWorld(n int) (*ecs.World, []ecs.Entity) {
	w := ecs.NewWorld()
	ents := make([]ecs.Entity, n)
	ecs.NewMap2[position, velocity](w).SpawnBatch(n, func(i int, e ecs.Entity, _ *position, v *velocity) {
		v.X = 1
		ents[i] = e
	})
	return w, ents
}

// BenchmarkQuery2 is Position += Velocity * dt over a million entities:
// ark's Next/Get loop against ecs's range loop (All) and its Next/Get.
func BenchmarkQuery2(b *testing.B) {
	aw, _ := arkWorld(million)
	af := ark.NewFilter2[position, velocity](aw)
	ew, _ := ecsWorld(million)
	eq := ecs.NewQuery2[position, velocity](ew, ecs.Mut[position]())
	engines(b, "loop=next", each(million, func() { arkMoveNext(af) }), each(million, func() { ecsMoveNext(eq) }))
	b.Run("loop=range/engine=ecs", each(million, func() { ecsMoveAll(eq) }))
	engines(b, "loop=columns", each(million, func() { arkMoveColumns(af) }), each(million, func() { ecsMoveColumns(eq) }))
}

//go:noinline
func arkSpawnEach(m *ark.Map2[position, velocity], n int) {
	p, v := position{X: 1}, velocity{Y: 1}
	for range n {
		m.NewEntity(&p, &v)
	}
}

//go:noinline
func ecsSpawnEach(m *ecs.Map2[position, velocity], n int) {
	for range n {
		m.Spawn(position{X: 1}, velocity{Y: 1})
	}
}

//go:noinline
func arkSpawnBatch(m *ark.Map2[position, velocity], n int) {
	m.NewBatchFn(n, func(_ ark.Entity, p *position, v *velocity) { p.X, v.Y = 1, 1 })
}

//go:noinline
func ecsSpawnBatch(m *ecs.Map2[position, velocity], n int) {
	m.SpawnBatch(n, func(_ int, _ ecs.Entity, p *position, v *velocity) { p.X, v.Y = 1, 1 })
}

//go:noinline
func ecsSpawnBatchColumns(m *ecs.Map2[position, velocity], n int) {
	m.SpawnBatchColumns(n, func(_ int, ents []ecs.Entity, ps []position, vs []velocity) {
		vs = vs[:len(ps)]
		for i := range ps {
			ps[i].X, vs[i].Y = 1, 1
		}
	})
}

//go:noinline
func arkSpawnBatchZero(m *ark.Map2[position, velocity], n int) { m.NewBatchFn(n, nil) }

//go:noinline
func ecsSpawnBatchZero(m *ecs.Map2[position, velocity], n int) { m.SpawnBatch(n, nil) }

type (
	arkMap2 = ark.Map2[position, velocity]
	ecsMap2 = ecs.Map2[position, velocity]
)

// arkWarm and ecsWarm return a world that held a million moving entities
// and removed them all: storage grown, as in a game with churn.
func arkWarm() *ark.Map2[position, velocity] {
	w, ents := arkWorld(million)
	for _, e := range ents {
		w.RemoveEntity(e)
	}
	return ark.NewMap2[position, velocity](w)
}

func ecsWarm() *ecs.Map2[position, velocity] {
	w, ents := ecsWorld(million)
	for _, e := range ents {
		if err := w.Despawn(e); err != nil {
			panic(err)
		}
	}
	return ecs.NewMap2[position, velocity](w)
}

// BenchmarkSpawn2 spawns a million entities with two components into a
// warm world: one at a time, as one batch with an init callback per entity
// (and, for ecs, per block of 256: SpawnBatchColumns), and as one batch of
// zero values.
func BenchmarkSpawn2(b *testing.B) {
	engines(b, "mode=each", fresh(million, arkWarm, func(m *arkMap2) { arkSpawnEach(m, million) }),
		fresh(million, ecsWarm, func(m *ecsMap2) { ecsSpawnEach(m, million) }))
	engines(b, "mode=batch", fresh(million, arkWarm, func(m *arkMap2) { arkSpawnBatch(m, million) }),
		fresh(million, ecsWarm, func(m *ecsMap2) { ecsSpawnBatch(m, million) }))
	b.Run("mode=batch-columns/engine=ecs", fresh(million, ecsWarm, func(m *ecsMap2) { ecsSpawnBatchColumns(m, million) }))
	engines(b, "mode=batch-zero", fresh(million, arkWarm, func(m *arkMap2) { arkSpawnBatchZero(m, million) }),
		fresh(million, ecsWarm, func(m *ecsMap2) { ecsSpawnBatchZero(m, million) }))
}

//go:noinline
func arkDespawnAll(w *ark.World, ents []ark.Entity) {
	for _, e := range ents {
		w.RemoveEntity(e)
	}
}

//go:noinline
func ecsDespawnAll(w *ecs.World, ents []ecs.Entity) {
	for _, e := range ents {
		_ = w.Despawn(e)
	}
}

// BenchmarkDespawn removes a million entities in spawn order.
func BenchmarkDespawn(b *testing.B) {
	type arkState struct {
		w    *ark.World
		ents []ark.Entity
	}
	type ecsState struct {
		w    *ecs.World
		ents []ecs.Entity
	}
	engines(b, "n=1000000",
		fresh(million, func() arkState { w, ents := arkWorld(million); return arkState{w, ents} },
			func(s arkState) { arkDespawnAll(s.w, s.ents) }),
		fresh(million, func() ecsState { w, ents := ecsWorld(million); return ecsState{w, ents} },
			func(s ecsState) { ecsDespawnAll(s.w, s.ents) }))
}

//go:noinline
func arkAddRemove(m *ark.Map[tag], ents []ark.Entity) {
	var t tag
	for _, e := range ents {
		m.Add(e, &t)
		m.Remove(e)
	}
}

//go:noinline
func ecsAddRemove(m *ecs.Map[tag], ents []ecs.Entity) {
	for _, e := range ents {
		if err := m.Add(e, tag{}); err != nil {
			panic(err)
		}
		if err := m.Remove(e); err != nil {
			panic(err)
		}
	}
}

// BenchmarkAddRemove adds a tag to each of a million entities and removes
// it again: two archetype moves; ns per add+remove pair.
func BenchmarkAddRemove(b *testing.B) {
	aw, aents := arkWorld(million)
	am := ark.NewMap[tag](aw)
	ew, eents := ecsWorld(million)
	em := ecs.NewMap[tag](ew)
	engines(b, "n=1000000", each(million, func() { arkAddRemove(am, aents) }), each(million, func() { ecsAddRemove(em, eents) }))
}

//go:noinline
func arkGetAll(m *ark.Map[position], ents []ark.Entity) float64 {
	s := 0.0
	for _, e := range ents {
		s += m.Get(e).X
	}
	return s
}

//go:noinline
func ecsGetAll(m *ecs.Map[position], ents []ecs.Entity) float64 {
	s := 0.0
	for _, e := range ents {
		s += m.Get(e).X
	}
	return s
}

//go:noinline
func ecsAtAll(m *ecs.Map[position], ents []ecs.Entity) float64 {
	s := 0.0
	for _, e := range ents {
		s += m.At(e).X
	}
	return s
}

//go:noinline
func ecsReadAll(m *ecs.Map[position], ents []ecs.Entity) float64 {
	s := 0.0
	for _, e := range ents {
		s += m.Read(e).X
	}
	return s
}

// BenchmarkGet gets a component by handle, in random order. ecs's Get
// marks the row changed; its Read does not (ark has no change tracking).
func BenchmarkGet(b *testing.B) {
	for _, n := range []int{1000, million} {
		aw, aents := arkWorld(n)
		ew, eents := ecsWorld(n)
		rng := rand.New(rand.NewPCG(5, 6))
		perm := rng.Perm(n)
		ashuf, eshuf := make([]ark.Entity, n), make([]ecs.Entity, n)
		for i, j := range perm {
			ashuf[i], eshuf[i] = aents[j], eents[j]
		}
		am, em := ark.NewMap[position](aw), ecs.NewMap[position](ew)
		engines(b, fmt.Sprintf("n=%d", n), each(n, func() { arkGetAll(am, ashuf) }), each(n, func() { ecsGetAll(em, eshuf) }))
		b.Run(fmt.Sprintf("n=%d/read/engine=ecs", n), each(n, func() { ecsReadAll(em, eshuf) }))
	}
}
