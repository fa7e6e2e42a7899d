package ecs

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// changeRef is a reference for Changed[Position]: an entity's last change
// (spawn with Position, add, write) in program order, and each query's last
// run in the same order.
type changeRef struct {
	seq     int
	changed map[Entity]int
}

func (r *changeRef) touch(e Entity) { r.seq++; r.changed[e] = r.seq }

// want lists the live entities holding Position changed after since.
func (r *changeRef) want(w *World, pos *Map[Position], since int) []Entity {
	var out []Entity
	for e, at := range r.changed {
		if at > since && w.Alive(e) && pos.Has(e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, compareEntities)
	return out
}

func compareEntities(a, b Entity) int { return int(a.index) - int(b.index) }

// changedEntities runs q (Next by Next) and returns what it yields, sorted.
func changedEntities[T any](q *Query1[T]) []Entity {
	var out []Entity
	it := q.Iter()
	for it.Next() {
		out = append(out, it.Entity())
	}
	slices.SortFunc(out, compareEntities)
	return out
}

// positionWorld is a world of n entities holding a Position, one at a time.
func positionWorld(n int) (*World, *Map[Position], []Entity) {
	w := NewWorld()
	pos := NewMap[Position](w)
	ents := make([]Entity, n)
	for i := range ents {
		ents[i] = w.Spawn()
		noErr(pos.Add(ents[i], Position{}))
	}
	return w, pos, ents
}

// TestChangeLogMatchesReference runs frames of scattered writes, spawns,
// despawns, archetype moves and whole-column writes against four Changed
// queries (one every frame, one every frame through NextTable, one every
// fifth, one that also writes what it reads), and checks each run against
// the reference. The log is small
// next to the writes, so it is trimmed, gives up on the slow query and
// restarts; the test also checks that most runs were served from the log,
// so the log path, not the scan, is what passed. Map writes made during
// self's runs are logged out of tick order, so both ways of finding a
// reader's first entry are exercised.
func TestChangeLogMatchesReference(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 99))
		w := NewWorld()
		pos, hp := NewMap[Position](w), NewMap[Health](w)
		ref := &changeRef{changed: map[Entity]int{}}
		var live []Entity
		spawn := func() {
			e := w.Spawn()
			if err := pos.Add(e, Position{X: 1}); err != nil {
				t.Fatal(err)
			}
			if rng.IntN(3) == 0 {
				if err := hp.Add(e, Health{HP: 1}); err != nil {
					t.Fatal(err)
				}
			}
			ref.touch(e)
			live = append(live, e)
		}
		for range 6000 {
			spawn()
		}
		every := NewQuery1[Position](w, Changed[Position]())
		slow := NewQuery1[Position](w, Changed[Position]())
		self := NewQuery1[Position](w, Changed[Position](), Mut[Position]())
		cols := NewQuery1[Position](w, Changed[Position]()) // read with NextTable
		all := NewQuery1[Position](w, Mut[Position]())
		lastRun := map[*Query1[Position]]int{every: 0, slow: 0, self: 0, cols: 0}
		fromLog, runs := 0, 0
		check := func(name string, q *Query1[Position], frame int) {
			runs++
			if frame > 0 && w.tables[w.records[live[0].index].table].ticks[0].log.covers(q.s.lastRun) {
				fromLog++
			}
			want := ref.want(w, pos, lastRun[q])
			var got []Entity
			if q == cols {
				it := q.Iter()
				for it.NextTable() {
					got = append(got, it.Entities()...)
				}
				slices.SortFunc(got, compareEntities)
			} else {
				got = changedEntities(q)
			}
			ref.seq++
			lastRun[q] = ref.seq
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d frame %d %s: %d entities, want %d", seed, frame, name, len(got), len(want))
			}
		}
		for frame := range 300 {
			for range rng.IntN(100) { // scattered writes, 1% of rows on average
				e := live[rng.IntN(len(live))]
				if rng.IntN(2) == 0 {
					pos.Get(e).X++
				} else if err := pos.Set(e, Position{X: 2}); err != nil {
					t.Fatal(err)
				}
				ref.touch(e)
			}
			if frame%7 == 3 { // structural churn: rows leave tables and fill holes
				for range rng.IntN(60) {
					i := rng.IntN(len(live))
					w.Despawn(live[i])
					live[i] = live[len(live)-1]
					live = live[:len(live)-1]
				}
				for range rng.IntN(60) {
					spawn()
				}
				for range rng.IntN(60) {
					e := live[rng.IntN(len(live))]
					if hp.Has(e) {
						must(t, hp.Remove(e))
					} else {
						must(t, hp.Add(e, Health{HP: 2}))
					}
				}
			}
			if frame%50 == 49 { // a system writes every row: the log restarts
				it := all.Iter()
				for it.Next() {
					it.Get().Y++
					ref.touch(it.Entity())
				}
			}
			check("every", every, frame)
			check("columns", cols, frame)
			if frame%5 == 0 {
				check("slow", slow, frame)
			}
			if frame%3 == 0 {
				// self writes what it reads: the others see those writes.
				// Writes through the Map during its run carry a newer
				// tick than the run's own, so self sees them next time,
				// and they are logged out of tick order.
				want := ref.want(w, pos, lastRun[self])
				var got, during []Entity
				it := self.Iter()
				for it.Next() {
					it.Get().Y++
					got = append(got, it.Entity())
					if rng.IntN(16) == 0 {
						e := live[rng.IntN(len(live))]
						pos.Get(e).X++
						during = append(during, e)
					}
				}
				ref.seq++
				for _, e := range got {
					ref.changed[e] = ref.seq
				}
				ref.seq++
				lastRun[self] = ref.seq
				for _, e := range during {
					ref.touch(e)
				}
				// A row written ahead of the cursor may be seen now too.
				seen := map[Entity]bool{}
				for _, e := range got {
					seen[e] = true
				}
				for _, e := range want {
					if !seen[e] {
						t.Fatalf("seed %d frame %d self: missed %v", seed, frame, e)
					}
					delete(seen, e)
				}
				for _, e := range during {
					delete(seen, e)
				}
				if len(seen) > 0 {
					t.Fatalf("seed %d frame %d self: %d entities seen that did not change", seed, frame, len(seen))
				}
			}
		}
		t.Logf("seed %d: %d of %d runs served by the change log", seed, fromLog, runs)
		// Runs after a restart (a whole-column write, or self writing
		// more rows than half the log holds) and slow's runs after it was
		// given up on scan; the rest must not.
		if fromLog < runs*2/3 {
			t.Errorf("seed %d: only %d of %d runs were served by the change log", seed, fromLog, runs)
		}
	}
}

// TestChangeLogEarlyBreakAndNesting: a run left early hands its row set
// back clean (the next run finds no phantom rows), and a run of the same
// query nested in another scans instead of sharing the set.
func TestChangeLogEarlyBreakAndNesting(t *testing.T) {
	w, pos, ents := positionWorld(1000)
	q := NewQuery1[Position](w, Changed[Position]())
	changedEntities(q)
	for _, i := range []int{3, 500, 999} {
		pos.Get(ents[i]).X++
	}
	it := q.Iter()
	if !it.Next() || it.Entity() != ents[3] {
		t.Fatal("first changed row not found")
	}
	it.Close()
	if got := changedEntities(q); len(got) != 0 {
		t.Fatalf("after an early break the next run saw %v, want nothing", got)
	}

	for _, i := range []int{10, 20} {
		pos.Get(ents[i]).X++
	}
	outer := q.Iter()
	var got []Entity
	for outer.Next() {
		got = append(got, outer.Entity())
		inner := q.Iter()
		for inner.Next() {
			t.Fatalf("the nested run saw %v: its since is the outer run's tick", inner.Entity())
		}
	}
	if !slices.Equal(got, []Entity{ents[10], ents[20]}) {
		t.Fatalf("outer run saw %v", got)
	}
}

// TestChangeLogBounded: a column's log stays within its bound however many
// frames of writes go by with no query running.
func TestChangeLogBounded(t *testing.T) {
	w, pos, ents := positionWorld(5000)
	q := NewQuery1[Position](w, Changed[Position]())
	changedEntities(q)
	rng := rand.New(rand.NewPCG(1, 2))
	tk := w.tables[w.records[ents[0].index].table].ticks[0]
	written := map[Entity]bool{}
	for range 10000 {
		e := ents[rng.IntN(len(ents))]
		pos.Get(e).X++
		written[e] = true
		w.Tick()
	}
	if n, limit := len(tk.log.entries), tk.logLimit(); n > limit {
		t.Fatalf("log holds %d entries, bound %d", n, limit)
	}
	if got := changedEntities(q); len(got) != len(written) {
		t.Fatalf("after the log overflowed the query saw %d entities, want %d", len(got), len(written))
	}
}

// TestChangeLogParallelReaders: two systems reading the same component
// through Changed queries run in parallel (the race detector checks they
// share nothing they write), after a system that writes a few rows through a
// Map; spawns and despawns come through the command buffer. Each sees
// exactly the rows written since its previous run.
func TestChangeLogParallelReaders(t *testing.T) {
	w, pos, ents := positionWorld(4000)
	qa := NewQuery1[Position](w, Changed[Position]())
	qb := NewQuery1[Position](w, Changed[Position]())
	changedEntities(qa)
	changedEntities(qb)
	var wrote map[Entity]bool
	frame := 0
	rng := rand.New(rand.NewPCG(3, 4))
	s := NewSchedule()
	s.Add("write", func(w *World, cmds *Commands) {
		wrote = map[Entity]bool{}
		for range 40 {
			e := ents[rng.IntN(len(ents))]
			if w.Alive(e) {
				pos.Get(e).X++
				wrote[e] = true
			}
		}
		if frame%4 == 1 {
			cmds.Despawn(ents[rng.IntN(len(ents))])
		}
	}, Writes[Position]())
	s.AddStage("read")
	seen := make([][]Entity, 2)
	for i, q := range []*Query1[Position]{qa, qb} {
		s.Add("reader", func(w *World, _ *Commands) { seen[i] = changedEntities(q) }, Reads[Position]())
	}
	for frame = range 200 {
		s.Run(w)
		for e := range wrote {
			if !w.Alive(e) { // despawned by the command buffer before the readers ran
				delete(wrote, e)
			}
		}
		for i, got := range seen {
			if len(got) != len(wrote) {
				t.Fatalf("frame %d reader %d: %d rows, want %d", frame, i, len(got), len(wrote))
			}
			for _, e := range got {
				if !wrote[e] {
					t.Fatalf("frame %d reader %d: %v did not change", frame, i, e)
				}
			}
		}
		if err := w.Tick(); err != nil {
			t.Fatal(err)
		}
	}
}
