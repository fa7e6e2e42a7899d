package ecs

import (
	"testing"
)

// holdersSeen counts the entities a query run over hive's holders visits,
// and checks each sits in a table aimed at hive.
func holdersSeen(t *testing.T, w *World, q *Query1[Position], home *Rel[homeHive], hive Entity) int {
	t.Helper()
	n := 0
	for it := q.IterOf(home.Of(hive)); it.Next(); {
		if tb := w.tables[w.records[it.Entity().index].table]; tb.target(home.ID()) != hive {
			t.Fatalf("%v was visited for hive %v from a table aimed at %v", it.Entity(), hive, tb.target(home.ID()))
		}
		n++
	}
	return n
}

// TestTargetsComeAndGoWithoutGrowingTables: a game whose targets are
// spawned and despawned round after round reuses the tables of the gone
// ones: the table count stays that of the targets alive at once, and a
// new target's holders are exactly its own, through an added component
// (an edge cached in a reused table) too.
func TestTargetsComeAndGoWithoutGrowingTables(t *testing.T) {
	w := NewWorld()
	home := NewRel[homeHive](w)
	bees := NewMap2[Position, homeHive](w)
	tag := NewMap[hiveTag](w)
	q := NewQuery1[Position](w)
	var most int
	for round := range 200 {
		hives := []Entity{w.Spawn(), w.Spawn(), w.Spawn()}
		for i, h := range hives {
			bees.To(h).SpawnBatch(5+i, nil)
		}
		for _, b := range home.Holders(hives[0])[:2] {
			must(t, tag.Add(b, hiveTag{}))
		}
		for i, h := range hives {
			if n := holdersSeen(t, w, q, home, h); n != 5+i || home.Count(h) != 5+i {
				t.Fatalf("round %d: hive %d's run saw %d of %d bees", round, i, n, home.Count(h))
			}
		}
		for _, h := range hives {
			must(t, w.Despawn(h))
		}
		w.checkRelations()
		most = max(most, len(w.tables))
	}
	if most > 16 {
		t.Fatalf("200 rounds of 3 targets made %d tables: the tables of gone targets are not reused", most)
	}
	for _, a := range w.Inspect().Archetypes() {
		if len(a.Targets) > 0 {
			t.Fatalf("archetype %d is listed aimed at %v after every target is gone", a.ID, a.Targets)
		}
	}
}

// TestAimedTablesFollowEveryMove: SetTarget, an exchange, a removal and a
// restore each leave a holder in the table of its target, or in one aimed
// at nothing once it holds no relation.
func TestAimedTablesFollowEveryMove(t *testing.T) {
	w := NewWorld()
	home := NewRel[homeHive](w)
	pos := NewMap[Position](w)
	health := NewMap[Health](w)
	q := NewQuery1[Position](w)
	a, b := w.Spawn(), w.Spawn()
	bee := w.Spawn()
	must(t, pos.Add(bee, Position{X: 1}))
	must(t, home.Add(bee, a, homeHive{Trips: 3}))
	if holdersSeen(t, w, q, home, a) != 1 {
		t.Fatal("the bee is not among hive a's")
	}
	must(t, home.SetTarget(bee, b))
	if holdersSeen(t, w, q, home, a) != 0 || holdersSeen(t, w, q, home, b) != 1 {
		t.Fatal("SetTarget left the bee among hive a's tables")
	}
	must(t, health.Exchange(bee, Health{HP: 9}))
	if holdersSeen(t, w, q, home, b) != 1 || NewMap[homeHive](w).Read(bee).Trips != 3 {
		t.Fatal("an added component lost the bee's target or value")
	}
	img, err := w.Image()
	must(t, err)
	must(t, home.Remove(bee))
	if tb := w.tables[w.records[bee.index].table]; tb.aims != nil {
		t.Fatalf("a bee without the relation sits in a table aimed at %v", tb.targets)
	}
	must(t, w.Restore(img))
	if holdersSeen(t, w, q, home, b) != 1 || holdersSeen(t, w, q, home, a) != 0 {
		t.Fatal("after a restore the bee is not in hive b's table")
	}
	w.checkRelations()
	// An entity aimed at itself despawns.
	self := w.Spawn()
	must(t, home.Add(self, self, homeHive{}))
	must(t, w.Despawn(self))
	w.checkRelations()
}
