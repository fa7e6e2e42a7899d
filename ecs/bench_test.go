package ecs

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmark workloads: Position += Velocity * dt over n entities, measured
// against plain Go in the same run. Each measured loop is its own noinline
// function so the compiler treats every variant alike.

type bPos struct{ X, Y float64 }
type bVel struct{ X, Y float64 }

const dt = 1.0 / 60

var sizes = []int{1000, 100_000, 1_000_000}

// stepOne is one entity's move, the work of every loop below (inlined).
func stepOne(p *bPos, v *bVel) {
	p.X += v.X * dt
	p.Y += v.Y * dt
}

// stepAll moves each position by its velocity.
func stepAll(ps []bPos, vs []bVel) {
	vs = vs[:len(ps)]
	for i := range ps {
		stepOne(&ps[i], &vs[i])
	}
}

// overSizes runs one sub-benchmark a world size, timing the move.
func overSizes(b *testing.B, move func(*Query2[bPos, bVel])) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			_, q := movingWorld(n)
			b.ReportAllocs()
			for b.Loop() {
				move(q)
			}
			perEntity(b, n)
		})
	}
}

func perEntity(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
}

//go:noinline
func moveAll(q *Query2[bPos, bVel]) {
	for p, v := range q.All() {
		stepOne(p, v)
	}
}

//go:noinline
func moveNext(q *Query2[bPos, bVel]) {
	it := q.Iter()
	for it.Next() {
		stepOne(it.Get())
	}
}

//go:noinline
func moveColumns(q *Query2[bPos, bVel]) {
	it := q.Iter()
	for it.NextTable() {
		stepAll(it.Columns())
	}
}

//go:noinline
func moveSlices(ps []bPos, vs []bVel) {
	stepAll(ps, vs)
}

type mover interface{ move() }

type boxed struct {
	p bPos
	v bVel
}

func (o *boxed) move() {
	o.p.X += o.v.X * dt
	o.p.Y += o.v.Y * dt
}

//go:noinline
func moveBoxed(objs []mover) {
	for _, o := range objs {
		o.move()
	}
}

func movingWorld(n int) (*World, *Query2[bPos, bVel]) {
	w := NewWorld()
	NewMap2[bPos, bVel](w).SpawnBatch(n, func(i int, _ Entity, p *bPos, v *bVel) {
		*v = bVel{X: float64(i % 7), Y: 1}
	})
	return w, NewQuery2[bPos, bVel](w, Mut[bPos]())
}

// BenchmarkQuery2 is the per-entity loop, range-over-func.
func BenchmarkQuery2(b *testing.B) {
	overSizes(b, moveAll)
}

// BenchmarkQuery2Next is the per-entity loop with Iter, Next and Get.
func BenchmarkQuery2Next(b *testing.B) {
	overSizes(b, moveNext)
}

func BenchmarkQuery2Columns(b *testing.B) {
	overSizes(b, moveColumns)
}

func BenchmarkBaselineSlices(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ps, vs := make([]bPos, n), make([]bVel, n)
			for i := range vs {
				vs[i] = bVel{X: float64(i % 7), Y: 1}
			}
			b.ReportAllocs()
			for b.Loop() {
				moveSlices(ps, vs)
			}
			perEntity(b, n)
		})
	}
}

func BenchmarkBaselineBoxed(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			objs := make([]mover, n)
			for i := range objs {
				objs[i] = &boxed{v: bVel{X: float64(i % 7), Y: 1}}
			}
			// A long-lived heap: objects visited in no particular order.
			rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
			b.ReportAllocs()
			for b.Loop() {
				moveBoxed(objs)
			}
			perEntity(b, n)
		})
	}
}

// fragTag1..8 split entities over 2^8 = 256 archetypes.
type (
	fragTag1 struct{ V int32 }
	fragTag2 struct{ V int32 }
	fragTag3 struct{ V int32 }
	fragTag4 struct{ V int32 }
	fragTag5 struct{ V int32 }
	fragTag6 struct{ V int32 }
	fragTag7 struct{ V int32 }
	fragTag8 struct{ V int32 }
)

func BenchmarkQuery2Fragmented(b *testing.B) {
	const n = 1_000_000
	w := NewWorld()
	adders := []func(Entity){
		func(e Entity) { NewMap[fragTag1](w).Add(e, fragTag1{}) },
		func(e Entity) { NewMap[fragTag2](w).Add(e, fragTag2{}) },
		func(e Entity) { NewMap[fragTag3](w).Add(e, fragTag3{}) },
		func(e Entity) { NewMap[fragTag4](w).Add(e, fragTag4{}) },
		func(e Entity) { NewMap[fragTag5](w).Add(e, fragTag5{}) },
		func(e Entity) { NewMap[fragTag6](w).Add(e, fragTag6{}) },
		func(e Entity) { NewMap[fragTag7](w).Add(e, fragTag7{}) },
		func(e Entity) { NewMap[fragTag8](w).Add(e, fragTag8{}) },
	}
	spawn := NewMap2[bPos, bVel](w)
	for i := range n {
		e := spawn.Spawn(bPos{}, bVel{X: 1, Y: 1})
		for bit, add := range adders {
			if i&(1<<bit) != 0 {
				add(e)
			}
		}
	}
	q := NewQuery2[bPos, bVel](w, Mut[bPos]())
	if got := len(q.s.cache.tables); got < 256 {
		b.Fatalf("matching tables = %d, want 256", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		moveAll(q)
	}
	perEntity(b, n)
}

//go:noinline
func spawnEach(m *Map2[bPos, bVel], n int) {
	for range n {
		m.Spawn(bPos{X: 1}, bVel{Y: 1})
	}
}

// warmWorld returns a world that held n moving entities and despawned them
// all: the steady state of a game with churn, storage already grown.
func warmWorld(n int) (*World, *Map2[bPos, bVel]) {
	w := NewWorld()
	m := NewMap2[bPos, bVel](w)
	ents := make([]Entity, n)
	m.SpawnBatch(n, func(i int, e Entity, _ *bPos, _ *bVel) { ents[i] = e })
	for _, e := range ents {
		noErr(w.Despawn(e))
	}
	return w, m
}

func BenchmarkSpawn2(b *testing.B) {
	warmSpawn(b, "n=1000000", spawnEach)
}

// warmSpawn times spawn of a million entities into a fresh warmWorld each
// run, the world's set-up untimed.
func warmSpawn(b *testing.B, name string, spawn func(m *Map2[bPos, bVel], n int)) {
	const n = 1_000_000
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			_, m := warmWorld(n)
			b.StartTimer()
			spawn(m, n)
		}
		perEntity(b, n)
	})
}

//go:noinline
func spawnBatch(m *Map2[bPos, bVel], n int) {
	m.SpawnBatch(n, func(_ int, _ Entity, p *bPos, v *bVel) {
		p.X, v.Y = 1, 1
	})
}

//go:noinline
func spawnBatchColumns(m *Map2[bPos, bVel], n int) {
	m.SpawnBatchColumns(n, func(_ int, ents []Entity, ps []bPos, vs []bVel) {
		vs = vs[:len(ps)]
		for i := range ps {
			ps[i].X, vs[i].Y = 1, 1
		}
	})
}

// BenchmarkSpawn2Batch spawns a million entities into a warm world as one
// batch: n= through SpawnBatch (init called per entity), init=columns/n=
// through SpawnBatchColumns (init called per block of 256), the same values.
func BenchmarkSpawn2Batch(b *testing.B) {
	warmSpawn(b, "n=1000000", spawnBatch)
	warmSpawn(b, "init=columns/n=1000000", spawnBatchColumns)
}

// plainStore is what a batch spawn must write in plain Go, with nothing
// of an ECS around it: two value slices, change and added ticks per value,
// an entity per row and a location record per entity.
type plainStore struct {
	pos, vel   []bPos
	posT, velT []stampPair
	ents       []Entity
	recs       []entityRecord
	free       []uint32
	len        int
}

//go:noinline
func plainSpawnBatch(s *plainStore, n int, init func(i int, e Entity, p *bPos, v *bVel)) {
	for done := 0; done < n; done += spawnBlock {
		lo, hi := s.len, s.len+min(spawnBlock, n-done)
		clear(s.pos[lo:hi])
		clear(s.vel[lo:hi])
		for r := lo; r < hi; r++ {
			s.posT[r] = stampPair{7, 7}
			s.velT[r] = stampPair{7, 7}
			idx := s.free[len(s.free)-1-(r-lo)-done]
			rec := &s.recs[idx]
			rec.table, rec.row = 1, uint32(r)
			s.ents[r] = Entity{index: idx, gen: rec.gen}
		}
		pos, vel := s.pos[lo:hi], s.vel[lo:hi]
		for i, e := range s.ents[lo:hi] {
			init(done+i, e, &pos[i], (*bVel)(&vel[i]))
		}
		s.len = hi
	}
}

// BenchmarkBaselineSpawnBatch is BenchmarkSpawn2Batch's memory work in
// plain Go: the floor a batch spawn with change tracking can reach here.
func BenchmarkBaselineSpawnBatch(b *testing.B) {
	const n = 1_000_000
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		s := &plainStore{pos: make([]bPos, n), vel: make([]bPos, n), posT: make([]stampPair, n), velT: make([]stampPair, n),
			ents: make([]Entity, n), recs: make([]entityRecord, n), free: make([]uint32, n)}
		for i := range s.free {
			s.free[i] = uint32(n - 1 - i)
			s.recs[i].gen = 2
		}
		b.ReportAllocs()
		for b.Loop() {
			s.len = 0
			plainSpawnBatch(s, n, func(_ int, _ Entity, p *bPos, v *bVel) { p.X, v.Y = 1, 1 })
		}
		perEntity(b, n)
	})
}

//go:noinline
func despawnAll(w *World, ents []Entity) {
	for _, e := range ents {
		noErr(w.Despawn(e))
	}
}

// BenchmarkDespawn despawns in spawn order; BenchmarkDespawnShuffled in
// random order, which adds a cache miss or two per entity at this size.
func BenchmarkDespawn(b *testing.B) { benchDespawn(b, false) }

// BenchmarkDespawnShuffled is BenchmarkDespawn in random order.
func BenchmarkDespawnShuffled(b *testing.B) { benchDespawn(b, true) }

func benchDespawn(b *testing.B, shuffle bool) {
	const n = 1_000_000
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		b.ReportAllocs()
		ents := make([]Entity, n)
		for b.Loop() {
			b.StopTimer()
			w := NewWorld()
			m := NewMap2[bPos, bVel](w)
			m.SpawnBatch(n, func(i int, e Entity, _ *bPos, _ *bVel) { ents[i] = e })
			if shuffle {
				rand.New(rand.NewPCG(3, 4)).Shuffle(n, func(i, j int) { ents[i], ents[j] = ents[j], ents[i] })
			}
			b.StartTimer()
			despawnAll(w, ents)
		}
		perEntity(b, n)
	})
}

type bTag struct{}

//go:noinline
func addRemoveAll(m *Map[bTag], ents []Entity) {
	for _, e := range ents {
		noErr(m.Add(e, bTag{}))
		noErr(m.Remove(e))
	}
}

func BenchmarkAddRemove(b *testing.B) {
	const n = 1_000_000
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		w := NewWorld()
		ents := make([]Entity, n)
		NewMap2[bPos, bVel](w).SpawnBatch(n, func(i int, e Entity, _ *bPos, _ *bVel) { ents[i] = e })
		tag := NewMap[bTag](w)
		b.ReportAllocs()
		for b.Loop() {
			addRemoveAll(tag, ents)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pair")
		perEntity(b, n)
	})
}

type bFlag struct{}

func (bFlag) Storage() StorageKind { return SparseStorage }

//go:noinline
func toggleAll(m *Map[bFlag], ents []Entity) {
	for _, e := range ents {
		noErr(m.Add(e, bFlag{}))
		noErr(m.Remove(e))
	}
}

func BenchmarkSparseToggle(b *testing.B) {
	const n = 100_000
	w := NewWorld()
	ents := make([]Entity, n)
	NewMap2[bPos, bVel](w).SpawnBatch(n, func(i int, e Entity, _ *bPos, _ *bVel) { ents[i] = e })
	flag := NewMap[bFlag](w)
	tables := len(w.tables)
	b.ReportAllocs()
	for b.Loop() {
		toggleAll(flag, ents)
	}
	if len(w.tables) != tables || w.tables[1].len() != n {
		b.Fatal("toggling a sparse component moved rows")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pair")
	perEntity(b, n)
}

//go:noinline
func getAll(m *Map[bPos], ents []Entity) float64 {
	s := 0.0
	for _, e := range ents {
		s += m.Get(e).X
	}
	return s
}

//go:noinline
func readAll(m *Map[bPos], ents []Entity) float64 {
	s := 0.0
	for _, e := range ents {
		s += m.Read(e).X
	}
	return s
}

func BenchmarkGet(b *testing.B) {
	for _, n := range []int{1000, 1_000_000} {
		w := NewWorld()
		ents := make([]Entity, n)
		NewMap2[bPos, bVel](w).SpawnBatch(n, func(i int, e Entity, _ *bPos, _ *bVel) { ents[i] = e })
		rand.New(rand.NewPCG(5, 6)).Shuffle(n, func(i, j int) { ents[i], ents[j] = ents[j], ents[i] })
		pos := NewMap[bPos](w)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				getAll(pos, ents)
			}
			perEntity(b, n)
		})
		b.Run(fmt.Sprintf("read/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				readAll(pos, ents)
			}
			perEntity(b, n)
		})
		// As in a game with a Changed query on the component: Get logs the
		// rows it marks, and the query's run between passes advances the
		// tick and takes the log.
		watch := NewQuery1[bPos](w, Changed[bPos]())
		b.Run(fmt.Sprintf("watched/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				getAll(pos, ents)
				for range watch.All() {
				}
			}
			perEntity(b, n)
		})
		s := plainLookupOf(w, pos)
		b.Run(fmt.Sprintf("baseline/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				plainGetAll(s, ents, 7)
			}
			perEntity(b, n)
		})
	}
}

// plainLookup is what Map.Get reads and writes, as plain slices of one
// table: the floor for random access by handle.
type plainLookup struct {
	recs  []entityRecord
	data  []bPos
	ticks []stampPair
}

func plainLookupOf(w *World, m *Map[bPos]) plainLookup {
	col := m.cols.of(1)
	return plainLookup{recs: w.records, data: col.data, ticks: col.t.rows}
}

// plainGetAll is getAll written by hand: check the handle, mark the row
// changed, read the value. The compiler inlines all of it, which it cannot
// do for Map.Get.
//
//go:noinline
func plainGetAll(s plainLookup, ents []Entity, tick uint32) float64 {
	sum := 0.0
	for _, e := range ents {
		if int(e.index) >= len(s.recs) {
			continue
		}
		r := &s.recs[e.index]
		if r.gen != e.gen || r.table != 1 {
			continue
		}
		s.ticks[r.row].changed = tick
		sum += s.data[r.row].X
	}
	return sum
}

//go:noinline
func sumChanged(q *Query1[bPos]) float64 {
	s := 0.0
	it := q.Iter()
	for it.Next() {
		p := it.Get()
		s += p.X
	}
	return s
}

// BenchmarkChangedQuery: 1% of 1M rows, chosen at random, are written between
// runs; a Changed query visits just those. Compare with BenchmarkQuery2. At
// random, each changed row is a cache miss on this machine.
func BenchmarkChangedQuery(b *testing.B) {
	benchChanged(b, func(rng *rand.Rand, n, _ int) int { return rng.IntN(n) })
}

// BenchmarkChangedQueryStrided is BenchmarkChangedQuery with every 100th row
// written: the same 1%, in an order the prefetcher follows.
func BenchmarkChangedQueryStrided(b *testing.B) {
	benchChanged(b, func(_ *rand.Rand, _, i int) int { return i * 100 })
}

// BenchmarkChangedQueryNone is the scan alone: nothing written between runs.
func BenchmarkChangedQueryNone(b *testing.B) { benchChanged(b, nil) }

func benchChanged(b *testing.B, pick func(rng *rand.Rand, n, i int) int) {
	const n = 1_000_000
	w, _ := movingWorld(n)
	pos := NewMap[bPos](w)
	changed := NewQuery1[bPos](w, Changed[bPos]())
	var ents []Entity
	it := NewQuery1[bPos](w).Iter()
	for it.Next() {
		ents = append(ents, it.Entity())
	}
	rng := rand.New(rand.NewPCG(7, 8))
	sumChanged(changed) // the first run sees everything as new
	mutate := func() {
		if pick != nil {
			for i := range n / 100 {
				pos.Get(ents[pick(rng, n, i)]).X++
			}
		}
	}
	mutate()
	b.ReportAllocs()
	for b.Loop() {
		sumChanged(changed)
		if pick != nil { // stopping the timer costs far more than a run that finds nothing
			b.StopTimer()
			mutate()
			b.StartTimer()
		}
	}
	if pick == nil { // a run that visits no row: its cost is per run
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/run")
		return
	}
	perEntity(b, n)
}

// BenchmarkQuery2Paired is BenchmarkQuery2/n=1000000 (subject; /columns:
// BenchmarkQuery2Columns) against BenchmarkBaselineSlices, interleaved in
// each iteration: the ratio the targets are about, without this VM's drift
// between two benchmarks run one after the other.
func BenchmarkQuery2Paired(b *testing.B) {
	const n = 1_000_000
	_, q := movingWorld(n)
	ps, vs := make([]bPos, n), make([]bVel, n)
	for i := range vs {
		vs[i] = bVel{X: float64(i % 7), Y: 1}
	}
	b.Run("all", func(b *testing.B) {
		paired(b, n, "ns/entity", func() { moveAll(q) }, func() { moveSlices(ps, vs) })
	})
	b.Run("columns", func(b *testing.B) {
		paired(b, n, "ns/entity", func() { moveColumns(q) }, func() { moveSlices(ps, vs) })
	})
}

// BenchmarkQuerySparseFilter is a query whose rows are tested one by one
// (a sparse tag on a third of them: the structural filter's row path)
// against a plain loop over slices testing a bool, interleaved.
func BenchmarkQuerySparseFilter(b *testing.B) {
	const n = 100_000
	w := NewWorld()
	flag := NewMap[bFlag](w)
	flags := make([]bool, n)
	NewMap2[bPos, bVel](w).SpawnBatch(n, func(i int, e Entity, _ *bPos, v *bVel) {
		*v = bVel{X: float64(i % 7), Y: 1}
	})
	q := NewQuery2[bPos, bVel](w, With[bFlag](), Mut[bPos]())
	all := NewQuery2[bPos, bVel](w)
	for i := range flags {
		flags[i] = i%3 == 0
	}
	i := 0
	var tagged []Entity
	for it := all.Iter(); it.Next(); i++ {
		if flags[i] {
			tagged = append(tagged, it.Entity())
		}
	}
	for _, e := range tagged {
		if err := flag.Add(e, bFlag{}); err != nil {
			b.Fatal(err)
		}
	}
	ps, vs := make([]bPos, n), make([]bVel, n)
	for i := range vs {
		vs[i] = bVel{X: float64(i % 7), Y: 1}
	}
	subject := func() {
		for p, v := range q.All() {
			p.X += v.X * dt
		}
	}
	baseline := func() {
		for i := range ps {
			if flags[i] {
				ps[i].X += vs[i].X * dt
			}
		}
	}
	if got := q.Count(); got != len(tagged) || got != (n+2)/3 {
		b.Fatalf("the query sees %d, want %d", got, len(tagged))
	}
	paired(b, n, "ns/entity", subject, baseline)
}
