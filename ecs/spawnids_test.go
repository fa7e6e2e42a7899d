package ecs

import (
	"slices"
	"testing"
)

// SpawnIDs and SpawnBatchIDs place an entity with ten components (one of
// them sparse) in its table at once, all zero, to be set through Maps;
// an id not registered, or ChildOf, is an error that creates nothing.
func TestSpawnIDsWideEntities(t *testing.T) {
	type (
		c0 struct{ V int }
		c1 struct{ V int }
		c2 struct{ V int }
		c3 struct{ V int }
		c4 struct{ V int }
		c5 struct{ V int }
		c6 struct{ V int }
		c7 struct{ V int }
		c8 struct{ V int }
	)
	w := NewWorld()
	w.Inspect().EnableJournal(8192)
	ids := []ComponentID{ComponentIDOf[c0](w), ComponentIDOf[c1](w), ComponentIDOf[c2](w), ComponentIDOf[c3](w), ComponentIDOf[c4](w),
		ComponentIDOf[c5](w), ComponentIDOf[c6](w), ComponentIDOf[c7](w), ComponentIDOf[c8](w), ComponentIDOf[sparseTag](w)}
	e, err := w.SpawnIDs(ids...)
	if err != nil {
		t.Fatal(err)
	}
	got := w.Inspect().ComponentsOf(e)
	slices.Sort(got)
	want := slices.Clone(ids)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("components %v, want %v", got, want)
	}
	NewMap[c7](w).Get(e).V = 7
	if NewMap[c7](w).Read(e).V != 7 || NewMap[sparseTag](w).Read(e) == nil {
		t.Fatal("the values are not reachable through Maps")
	}
	c3s := NewMap[c3](w)
	if err := w.SpawnBatchIDs(600, ids, func(first int, ents []Entity) {
		for i, ent := range ents {
			c3s.Get(ent).V = first + i
		}
	}); err != nil {
		t.Fatal(err)
	}
	if n := NewQuery2[c0, c8](w).Count(); n != 601 || NewMap[sparseTag](w).Len() != 601 {
		t.Fatalf("%d entities with c0 and c8, %d with the sparse tag, want 601", n, NewMap[sparseTag](w).Len())
	}
	sum := 0
	for v := range NewQuery1[c3](w).All() {
		sum += v.V
	}
	if sum != 599*600/2 {
		t.Fatalf("the batch's init set %d in all, want %d", sum, 599*600/2)
	}
	spawns := 0
	for _, j := range w.Inspect().Journal() {
		if j.Op == OpSpawn {
			spawns++
		}
	}
	if spawns != 601 {
		t.Fatalf("%d spawns journaled", spawns)
	}
	alive := w.Len()
	if _, err := w.SpawnIDs(ids[0], ComponentID(200)); err == nil {
		t.Fatal("an id not registered was taken")
	}
	if _, err := w.SpawnIDs(ids[0], ComponentIDOf[ChildOf](w)); err == nil {
		t.Fatal("ChildOf was taken")
	}
	if w.Len() != alive {
		t.Fatalf("a refused spawn created an entity: %d then %d", alive, w.Len())
	}
}

// TestBatchSpawnsAreZero: a batch spawn without an init gives zero values,
// where rows despawned earlier left their values in the table's memory,
// where the table grows into new memory for it, and in a fresh world with
// a capacity, pointer-holding types too.
func TestBatchSpawnsAreZero(t *testing.T) {
	type named struct {
		Name string
		N    int
	}
	type pos struct{ X, Y float64 }
	for _, opts := range [][]WorldOption{nil, {Capacity(300)}} {
		w := NewWorld(opts...)
		m := NewMap2[named, pos](w)
		var old []Entity
		for i := range 100 {
			old = append(old, m.Spawn(named{"old", i + 1}, pos{1, 2}))
		}
		for _, e := range old {
			must(t, w.Despawn(e))
		}
		check := func(n int) {
			t.Helper()
			before := w.Len()
			m.SpawnBatch(n, nil)
			if w.Len() != before+n {
				t.Fatalf("%d entities after a batch of %d on %d", w.Len(), n, before)
			}
			for it := NewQuery2[named, pos](w).Iter(); it.Next(); {
				if a, b := it.Get(); *a != (named{}) || *b != (pos{}) {
					t.Fatalf("a batch-spawned entity holds %+v, %+v", *a, *b)
				}
			}
		}
		check(60)   // into the rows the despawned left
		check(1000) // the table grows into new memory
		check(3)    // past the rows the growth made room for, still zero
	}
}
