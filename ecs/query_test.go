package ecs

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func collect1[A any](q *Query1[A]) []Entity {
	var out []Entity
	it := q.Iter()
	for it.Next() {
		out = append(out, it.Entity())
	}
	slices.SortFunc(out, func(a, b Entity) int { return int(a.index) - int(b.index) })
	return out
}

func TestQueryFilters(t *testing.T) {
	w := NewWorld()
	a := NewMap2[Position, Velocity](w).Spawn(Position{}, Velocity{})
	b := NewMap3[Position, Velocity, Frozen](w).Spawn(Position{}, Velocity{}, Frozen{})
	c := NewMap[Position](w)
	cEnt := w.Spawn()
	must(t, c.Add(cEnt, Position{}))
	d := NewMap2[Position, Fleeing](w).Spawn(Position{}, Fleeing{})

	cases := []struct {
		name string
		q    *Query1[Position]
		want []Entity
	}{
		{"all", NewQuery1[Position](w), []Entity{a, b, cEnt, d}},
		{"with", NewQuery1[Position](w, With[Velocity]()), []Entity{a, b}},
		{"without", NewQuery1[Position](w, With[Velocity](), Without[Frozen]()), []Entity{a}},
		{"with sparse", NewQuery1[Position](w, With[Fleeing]()), []Entity{d}},
		{"without sparse", NewQuery1[Position](w, Without[Fleeing]()), []Entity{a, b, cEnt}},
	}
	for _, tc := range cases {
		if got := collect1(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		if n := tc.q.Count(); n != len(tc.want) {
			t.Errorf("%s: Count = %d, want %d", tc.name, n, len(tc.want))
		}
	}
}

func TestQueryOptional(t *testing.T) {
	w := NewWorld()
	a := NewMap2[Position, Health](w).Spawn(Position{X: 1}, Health{HP: 5})
	b := NewMap[Position](w)
	bEnt := w.Spawn()
	must(t, b.Add(bEnt, Position{X: 2}))
	q := NewQuery2[Position, Health](w, Optional[Health]())
	seen := map[Entity]*Health{}
	it := q.Iter()
	for it.Next() {
		_, h := it.Get()
		seen[it.Entity()] = h
	}
	if len(seen) != 2 || seen[a] == nil || seen[a].HP != 5 || seen[bEnt] != nil {
		t.Errorf("optional: %v", seen)
	}
	n := 0
	for p, h := range q.All() {
		n++
		if (p.X == 1) != (h != nil) {
			t.Error("All yields the wrong optional value")
		}
	}
	if n != 2 {
		t.Errorf("All visited %d", n)
	}
}

func TestQuerySparseComponent(t *testing.T) {
	w := NewWorld()
	m := NewMap2[Position, Fleeing](w)
	e1 := m.Spawn(Position{X: 1}, Fleeing{Since: 10})
	NewMap[Position](w).Add(w.Spawn(), Position{X: 2})
	q := NewQuery2[Position, Fleeing](w, Mut[Fleeing]())
	n := 0
	for p, f := range q.All() {
		n++
		if p.X != 1 || f.Since != 10 {
			t.Errorf("got %+v %+v", p, f)
		}
		f.Since = 11
	}
	if n != 1 || NewMap[Fleeing](w).Read(e1).Since != 11 {
		t.Errorf("sparse query visited %d", n)
	}
}

func TestChangedAndAddedAcrossTicks(t *testing.T) {
	w := NewWorld()
	spawn := NewMap2[Position, Velocity](w)
	pos := NewMap[Position](w)
	var ents []Entity
	for i := range 200 { // spans several chunks
		ents = append(ents, spawn.Spawn(Position{X: float64(i)}, Velocity{}))
	}
	changed := NewQuery1[Position](w, Changed[Position]())
	added := NewQuery1[Position](w, Added[Position]())
	if got := len(collect1(changed)); got != 200 {
		t.Fatalf("first run sees %d changed, want all 200", got)
	}
	if got := len(collect1(added)); got != 200 {
		t.Fatalf("first run sees %d added, want 200", got)
	}
	if got := collect1(changed); len(got) != 0 {
		t.Fatalf("nothing written, yet %d changed", len(got))
	}
	pos.Get(ents[3]).X = 99
	must(t, pos.Set(ents[150], Position{}))
	if got := collect1(changed); !slices.Equal(got, []Entity{ents[3], ents[150]}) {
		t.Errorf("changed = %v", got)
	}
	if got := collect1(changed); len(got) != 0 {
		t.Errorf("changes seen twice: %v", got)
	}
	if got := collect1(added); len(got) != 0 {
		t.Errorf("writes counted as adds: %v", got)
	}
	// Read-only access marks nothing.
	_ = pos.Read(ents[7])
	reader := NewQuery2[Position, Velocity](w)
	for p := range reader.All() {
		_ = p
	}
	if got := collect1(changed); len(got) != 0 {
		t.Errorf("read-only access marked rows: %v", got)
	}
	// A writable query marks every row it yields, and only for Write types.
	mover := NewQuery2[Position, Velocity](w, Mut[Position]())
	velChanged := NewQuery1[Velocity](w, Changed[Velocity]())
	velChanged.Count()
	collect1(velChanged)
	for p := range mover.All() {
		p.X++
	}
	if got := collect1(changed); len(got) != 200 {
		t.Errorf("after a writable pass, %d changed, want 200", len(got))
	}
	if got := collect1(velChanged); len(got) != 0 {
		t.Errorf("Velocity marked though not writable: %d", len(got))
	}
	// Moving rows keeps their change stamps: a stamped table is folded into rows.
	for p := range mover.All() {
		p.X++
	}
	collect1(changed)
	frozen := NewMap[Frozen](w)
	must(t, frozen.Add(ents[10], Frozen{}))
	if got := collect1(changed); len(got) != 0 {
		t.Errorf("adding Frozen made %d Position rows look changed", len(got))
	}
	must(t, NewMap[Health](w).Add(ents[20], Health{}))
	if got := collect1(added); len(got) != 0 {
		t.Errorf("a table move re-added Position: %v", got)
	}
	e := spawn.Spawn(Position{}, Velocity{})
	if got := collect1(added); !slices.Equal(got, []Entity{e}) {
		t.Errorf("added = %v, want the new entity", got)
	}
}

func TestEarlyCloseMarksOnlyVisitedRows(t *testing.T) {
	w := NewWorld()
	spawn := NewMap2[Position, Velocity](w)
	for range 300 {
		spawn.Spawn(Position{}, Velocity{})
	}
	changed := NewQuery1[Position](w, Changed[Position]())
	collect1(changed)
	mover := NewQuery1[Position](w, Mut[Position]())
	it := mover.Iter()
	for i := 0; i < 100 && it.Next(); i++ {
	}
	it.Close()
	if got := len(collect1(changed)); got != 100 {
		t.Errorf("early close marked %d rows, want 100", got)
	}
	it.Close() // twice is fine
	w.Spawn()  // unlocked
}

func TestColumnsAPI(t *testing.T) {
	w := NewWorld()
	spawn := NewMap2[Position, Velocity](w)
	frozen := NewMap[Frozen](w)
	for i := range 10 {
		e := spawn.Spawn(Position{}, Velocity{X: float64(i)})
		if i%2 == 0 {
			must(t, frozen.Add(e, Frozen{}))
		}
	}
	q := NewQuery2[Position, Velocity](w, Mut[Position]())
	it := q.Iter()
	runs, rows := 0, 0
	for it.NextTable() {
		ps, vs := it.Columns()
		ents := it.Entities()
		if len(ps) != len(vs) || len(ps) != len(ents) {
			t.Fatal("columns of unequal length")
		}
		for i := range ps {
			ps[i].X += vs[i].X
		}
		runs++
		rows += len(ps)
	}
	if runs != 2 || rows != 10 {
		t.Errorf("runs=%d rows=%d", runs, rows)
	}
	// With a row filter, runs are the stretches of matching rows.
	changed := NewQuery1[Position](w, Changed[Position]())
	collect1(changed)
	pos := NewMap[Position](w)
	var all []Entity
	it2 := NewQuery1[Position](w).Iter()
	for it2.Next() {
		all = append(all, it2.Entity())
	}
	pos.Get(all[0])
	pos.Get(all[1])
	pos.Get(all[3])
	it3 := changed.Iter()
	var lens []int
	for it3.NextTable() {
		lens = append(lens, len(it3.Columns()))
	}
	if !slices.Equal(lens, []int{2, 1}) {
		t.Errorf("filtered runs = %v, want [2 1]", lens)
	}
}

func TestQueryCacheSeesNewTables(t *testing.T) {
	w := NewWorld()
	q := NewQuery1[Position](w)
	if q.Count() != 0 {
		t.Fatal("empty world matched")
	}
	NewMap2[Position, Name](w).Spawn(Position{}, Name{})
	NewMap2[Position, Health](w).Spawn(Position{}, Health{})
	if q.Count() != 2 {
		t.Errorf("Count = %d after new tables, want 2", q.Count())
	}
	if len(w.caches) != 1 {
		t.Errorf("caches = %d", len(w.caches))
	}
	NewQuery1[Position](w) // same filter shares the cache
	if len(w.caches) != 1 {
		t.Errorf("identical queries did not share a cache")
	}
}

func TestStructuralChangeDuringIterationPanics(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	e := w.Spawn()
	must(t, pos.Add(e, Position{}))
	ops := map[string]func(){
		"Spawn":   func() { w.Spawn() },
		"Despawn": func() { _ = w.Despawn(e) },
		"Add":     func() { _ = NewMap[Health](w).Add(e, Health{}) },
		"Remove":  func() { _ = pos.Remove(e) },
	}
	for name, op := range ops {
		func() {
			it := NewQuery1[Position](w).Iter()
			it.Next()
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.Contains(msg, "command buffer") || !strings.Contains(msg, name) {
					t.Errorf("%s: panic = %v", name, r)
				}
				it.Close()
			}()
			op()
		}()
	}
	if !w.Alive(e) || !pos.Has(e) || w.Len() != 1 {
		t.Error("world changed by a refused structural change")
	}
	// Non-structural writes are fine while iterating.
	it := NewQuery1[Position](w).Iter()
	for it.Next() {
		must(t, pos.Set(it.Entity(), Position{X: 4}))
	}
	if pos.Read(e).X != 4 {
		t.Error("Set during iteration lost")
	}
}

func TestContradictoryTermsPanic(t *testing.T) {
	w := NewWorld()
	for name, f := range map[string]func(){
		"optional not listed": func() { NewQuery1[Position](w, Optional[Health]()) },
		"with and without":    func() { NewQuery1[Position](w, Without[Position]()) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestQueryArities(t *testing.T) {
	type C3 struct{ V int }
	type C4 struct{ V int }
	type C5 struct{ V int }
	type C6 struct{ V int }
	w := NewWorld()
	m := NewMap6[Position, Velocity, C3, C4, C5, C6](w)
	m.Spawn(Position{X: 1}, Velocity{X: 2}, C3{3}, C4{4}, C5{5}, C6{6})
	q := NewQuery6[Position, Velocity, C3, C4, C5, C6](w)
	n := 0
	for r := range q.All() {
		n++
		if r.A.X+r.B.X+float64(r.C.V+r.D.V+r.E.V+r.F.V) != 21 {
			t.Error("wrong values")
		}
	}
	if n != 1 || NewQuery3[Position, Velocity, C3](w).Count() != 1 || NewQuery4[Position, Velocity, C3, C4](w).Count() != 1 ||
		NewQuery5[Position, Velocity, C3, C4, C5](w).Count() != 1 {
		t.Error("arity queries disagree")
	}
}

// TestChangedFindsScatteredRows writes a random subset of many rows in two
// tables (more dirty groups than one batch of candidates holds) and checks
// that a Changed query hands out exactly those, then nothing, then only
// what was written since, including by its own writes.
func TestChangedFindsScatteredRows(t *testing.T) {
	w := NewWorld()
	var ents []Entity
	NewMap2[Position, Velocity](w).SpawnBatch(20_000, func(_ int, e Entity, _ *Position, _ *Velocity) { ents = append(ents, e) })
	frozen := NewMap[Frozen](w)
	for _, e := range ents[:5000] { // a second table holding a quarter of them
		must(t, frozen.Add(e, Frozen{}))
	}
	posMap := NewMap[Position](w)
	changed := NewQuery1[Position](w, Changed[Position](), Mut[Position]())
	run := func() map[Entity]bool {
		got := map[Entity]bool{}
		it := changed.Iter()
		for it.Next() {
			if got[it.Entity()] {
				t.Fatalf("%v handed out twice in one run", it.Entity())
			}
			got[it.Entity()] = true
		}
		return got
	}
	if got := run(); len(got) != len(ents) {
		t.Fatalf("first run saw %d of %d new rows", len(got), len(ents))
	}
	if got := run(); len(got) != 0 {
		t.Fatalf("a run right after saw %d rows as changed", len(got))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 5 {
		want := map[Entity]bool{}
		for range 100 + round*700 {
			e := ents[rng.IntN(len(ents))]
			posMap.Get(e).X++
			want[e] = true
		}
		got := run()
		if len(got) != len(want) {
			t.Fatalf("round %d: %d rows handed out, %d were written", round, len(got), len(want))
		}
		for e := range want {
			if !got[e] {
				t.Fatalf("round %d: written %v not handed out", round, e)
			}
		}
	}
}
