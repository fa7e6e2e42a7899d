package ecs

import (
	"cmp"
	"errors"
	"slices"
	"testing"
)

// Relations of the tests: a bee's hive, and the flower it works.
type (
	homeHive struct {
		Relation
		Trips int
	}
	worksAt struct{ Relation }
	hiveTag struct{}
)

func (worksAt) Storage() StorageKind { return SparseStorage }

// TestRelationsHaveTargets: an entity holds several relation kinds, each
// pointing at its own target; the holders of a target are listed without
// a scan, in link order; SetTarget moves no row; a target's despawn takes
// the relation from its holders (journaled), a holder's despawn leaves the
// index; values keep their data through it all.
func TestRelationsHaveTargets(t *testing.T) {
	w := NewWorld()
	w.Inspect().EnableJournal(256)
	home, works := NewRel[homeHive](w), NewRel[worksAt](w)
	hives := []Entity{w.Spawn(), w.Spawn()}
	flower := w.Spawn()
	var bees []Entity
	for i := range 6 {
		b := w.Spawn()
		bees = append(bees, b)
		must(t, home.Add(b, hives[i%2], homeHive{Trips: i}))
	}
	must(t, works.Add(bees[0], flower, worksAt{}))
	if got := home.Holders(hives[0]); !slices.Equal(got, []Entity{bees[0], bees[2], bees[4]}) {
		t.Fatalf("hive 0's bees: %v", got)
	}
	if tg, ok := works.Target(bees[0]); !ok || tg != flower || home.Count(flower) != 0 {
		t.Fatalf("bee 0 works at %v %v", tg, ok)
	}
	must(t, home.SetTarget(bees[2], hives[1]))
	if tb := w.tables[w.records[bees[2].index].table]; tb.target(home.ID()) != hives[1] || NewMap[homeHive](w).Read(bees[2]).Trips != 2 {
		t.Fatal("SetTarget left the bee among its old hive's table, or lost the value")
	}
	if tb := w.tables[w.records[bees[3].index].table]; w.records[bees[2].index].table != tb.id {
		t.Fatal("two bees of one hive and one archetype sit in two tables")
	}
	if home.Count(hives[0]) != 2 || home.Count(hives[1]) != 4 {
		t.Fatalf("after the move: %d and %d", home.Count(hives[0]), home.Count(hives[1]))
	}
	// Map.Set keeps the target.
	must(t, NewMap[homeHive](w).Set(bees[1], homeHive{Trips: 40}))
	if tg, _ := home.Target(bees[1]); tg != hives[1] {
		t.Fatalf("Set changed the target to %v", tg)
	}
	before := len(w.Inspect().Journal())
	must(t, w.Despawn(hives[1]))
	for _, b := range []Entity{bees[1], bees[2], bees[3], bees[5]} {
		if _, ok := home.Target(b); ok || NewMap[homeHive](w).Has(b) {
			t.Fatalf("%v kept a relation to a despawned hive", b)
		}
	}
	removes := 0
	for _, j := range w.Inspect().Journal()[before:] {
		if j.Op == OpRemove && j.Component == int(home.ID()) {
			removes++
		}
	}
	if removes != 4 {
		t.Fatalf("the journal shows %d removals of homeHive, want 4", removes)
	}
	must(t, w.Despawn(bees[0]))
	if home.Count(hives[0]) != 1 || works.Count(flower) != 0 {
		t.Fatalf("a despawned bee is still indexed: %v, %v", home.Holders(hives[0]), works.Holders(flower))
	}
	// Added without a target: refused, naming the way.
	if err := NewMap[homeHive](w).Add(bees[4], homeHive{}); err == nil {
		t.Fatal("a relation added without a target")
	}
	var ee *EntityError
	if err := home.Add(bees[4], hives[1], homeHive{}); !errors.As(err, &ee) {
		t.Fatalf("a relation to a dead target: %v", err)
	}
}

// TestFilterByRelatedFindsHoldersOnly: a Filter naming a relation's target
// passes the holders of that target (and the filter's other tests), found
// through the index; a batch despawn over it takes exactly those.
func TestFilterByRelatedFindsHoldersOnly(t *testing.T) {
	w := NewWorld()
	home := NewRel[homeHive](w)
	tag := NewMap[hiveTag](w)
	a, b := w.Spawn(), w.Spawn()
	var ofA []Entity
	for i := range 50 {
		e := w.Spawn()
		target := b
		if i%5 == 0 {
			target = a
			ofA = append(ofA, e)
		}
		must(t, home.Add(e, target, homeHive{}))
		if i%10 == 0 {
			must(t, tag.Add(e, hiveTag{}))
		}
	}
	got, total := w.Inspect().Scan(Filter{Related: home.Of(a)}, 0, -1)
	slices.SortFunc(got, compareEntities) // Scan gives the world's order: table, then row
	if !slices.Equal(got, ofA) || total != len(ofA) {
		t.Fatalf("holders of a: %v (%d), want %v", got, total, ofA)
	}
	got, _ = w.Inspect().Scan(Filter{Related: home.Of(a), With: []ComponentID{tag.ID()}}, 1, 10)
	if len(got) != 4 { // 10 of a's (every 5th), every other tagged: 5 tagged, from the 2nd
		t.Fatalf("tagged holders of a from the second: %v", got)
	}
	if n := w.DespawnWhere(Filter{Related: home.Of(a)}); n != len(ofA) || home.Count(a) != 0 || home.Count(b) != 40 {
		t.Fatalf("DespawnWhere took %d; a has %d, b %d", n, home.Count(a), home.Count(b))
	}
}

// TestRestoreRebuildsRelations: an image carries the targets in the
// values; restoring it rebuilds every relation's index.
func TestRestoreRebuildsRelations(t *testing.T) {
	w := NewWorld()
	home, works := NewRel[homeHive](w), NewRel[worksAt](w)
	hive, flower := w.Spawn(), w.Spawn()
	bees := []Entity{w.Spawn(), w.Spawn(), w.Spawn()}
	for _, b := range bees {
		must(t, home.Add(b, hive, homeHive{Trips: 1}))
	}
	must(t, works.Add(bees[1], flower, worksAt{}))
	img, err := w.Image()
	must(t, err)
	must(t, w.Despawn(hive))
	must(t, home.Add(w.Spawn(), flower, homeHive{}))
	must(t, w.Restore(img))
	if got := home.Holders(hive); !slices.Equal(got, bees) || home.Count(flower) != 0 || works.Count(flower) != 1 {
		t.Fatalf("after the restore: hive %v, flower %d / %d", got, home.Count(flower), works.Count(flower))
	}
	w.checkRelations() // the index agrees with the values
}

// TestQueryOfATarget: a query run over a relation's target visits exactly
// the holders that match the query (a table of the target's at a time), marks its Mut writes
// for a Changed query, and costs nothing for other targets' holders;
// a Map spawns holders with a target in one move (To), batch and single.
func TestQueryOfATarget(t *testing.T) {
	w := NewWorld()
	home := NewRel[homeHive](w)
	hives := []Entity{w.Spawn(), w.Spawn()}
	bees := NewMap3[Position, Health, homeHive](w)
	var of0 []Entity
	bees.To(hives[0]).SpawnBatch(30, func(i int, e Entity, p *Position, h *Health, hh *homeHive) {
		p.X, h.HP, hh.Trips = float64(i), i, i
		of0 = append(of0, e)
	})
	lone := bees.To(hives[1]).Spawn(Position{X: 100}, Health{HP: 100}, homeHive{Trips: 7})
	bees.To(hives[1]).SpawnBatch(20, nil)
	if home.Count(hives[0]) != 30 || home.Count(hives[1]) != 21 || NewMap[homeHive](w).Read(lone).Trips != 7 {
		t.Fatalf("spawned with targets: %d, %d", home.Count(hives[0]), home.Count(hives[1]))
	}
	if tg, _ := home.Target(lone); tg != hives[1] {
		t.Fatalf("the lone bee's hive: %v", tg)
	}
	tag := NewMap[hiveTag](w)
	for _, e := range of0[:10] {
		must(t, tag.Add(e, hiveTag{})) // 10 of hive 0's bees move to another table
	}
	q := NewQuery2[Position, Health](w, Mut[Health]())
	changed := NewQuery1[Health](w, Changed[Health]())
	for range changed.All() { // seen: from now on, only what changes
	}
	var seen []Entity
	for it := q.IterOf(home.Of(hives[0])); it.Next(); {
		_, h := it.Get()
		h.HP += 1000
		seen = append(seen, it.Entity())
	}
	if slices.SortFunc(seen, func(a, b Entity) int { return cmp.Compare(a.index, b.index) }); !slices.Equal(seen, of0) {
		t.Fatalf("the run over hive 0 saw %d bees: %v", len(seen), seen)
	}
	if n := changed.Count(); n != 30 {
		t.Fatalf("the run over hive 0 marked %d rows written, want its 30", n)
	}
	tagged := NewQuery1[Health](w, With[hiveTag]())
	n := 0
	for h := range tagged.AllOf(home.Of(hives[0])) {
		if h.HP < 1000 {
			t.Fatalf("a write through the run was lost: %v", h.HP)
		}
		n++
	}
	if n != 10 {
		t.Fatalf("the tagged bees of hive 0: %d", n)
	}
	for range q.AllOf(home.Of(w.Spawn())) {
		t.Fatal("a hive with no bees has bees")
	}
	// Spawning a relation without a target is refused before anything
	// is made.
	defer func() {
		if r := recover(); r == nil || w.Len() != 2+30+21+1 {
			t.Fatalf("a spawn without To: %v, %d entities", r, w.Len())
		}
	}()
	bees.Spawn(Position{}, Health{}, homeHive{})
}
