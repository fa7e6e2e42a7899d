package ecs

import (
	"slices"
	"testing"
)

// TestHeldBySeesATargetsHolders: a target says which relation kinds point
// at it and how many holders each (a parent's children among them), and
// pages them as Scan pages; a holder that leaves or dies is gone from
// the count; an entity nothing points at, or a dead one, has none.
func TestHeldBySeesATargetsHolders(t *testing.T) {
	w := NewWorld()
	home, works := NewRel[homeHive](w), NewRel[worksAt](w)
	hive, flower := w.Spawn(), w.Spawn()
	var bees []Entity
	for i := range 5 {
		b := w.Spawn()
		bees = append(bees, b)
		must(t, home.Add(b, hive, homeHive{Trips: i}))
	}
	must(t, works.Add(bees[0], hive, worksAt{}))
	kid := w.Spawn()
	must(t, w.SetParent(kid, hive))
	ins := w.Inspect()
	held := ins.HeldBy(hive)
	count := map[string]int{}
	for _, h := range held {
		count[h.Name] = h.Count
	}
	if len(held) != 3 || count["homeHive"] != 5 || count["worksAt"] != 1 || count["ChildOf"] != 1 {
		t.Fatalf("the hive is held by %+v, want homeHive 5, worksAt 1, ChildOf 1", held)
	}
	page, total := ins.Holders(hive, ComponentIDOf[homeHive](w), 1, 2)
	all, _ := ins.Holders(hive, ComponentIDOf[homeHive](w), 0, -1)
	if total != 5 || len(page) != 2 || !slices.Equal(page, all[1:3]) {
		t.Fatalf("a page of the hive's bees: %v of %d (all %v)", page, total, all)
	}
	must(t, w.Despawn(bees[1]))
	must(t, home.Remove(bees[2]))
	if hs := ins.HeldBy(hive); len(hs) != 3 || hs[1].Name != "homeHive" || hs[1].Count != 3 {
		t.Fatalf("after a bee died and one left: %+v", hs)
	}
	if hs := ins.HeldBy(flower); hs != nil {
		t.Errorf("a flower nothing points at is held by %+v", hs)
	}
	must(t, w.Despawn(hive))
	if hs, n := ins.HeldBy(hive), 0; hs != nil {
		_, n = ins.Holders(hive, ComponentIDOf[homeHive](w), 0, -1)
		t.Errorf("a dead hive is held by %+v (%d)", hs, n)
	}
}
