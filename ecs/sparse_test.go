package ecs

import "testing"

// TestSparseComponentsMoveNothing: adding and removing a sparse component
// leaves the entity's row where it was; values stay with their entities as
// others leave the set; Changed sees writes to sparse values; a stale
// handle finds nothing.
func TestSparseComponentsMoveNothing(t *testing.T) {
	w := NewWorld()
	pos, flee := NewMap[Position](w), NewMap[Fleeing](w)
	var ents []Entity
	for i := range 100 {
		ents = append(ents, pos.Spawn(Position{X: float64(i)}))
	}
	arch, row, _ := w.Inspect().Location(ents[50])
	for i, e := range ents {
		if i%2 == 0 {
			must(t, flee.Add(e, Fleeing{i}))
		}
	}
	if a, r, _ := w.Inspect().Location(ents[50]); a != arch || r != row {
		t.Fatalf("a sparse add moved the entity: %d/%d -> %d/%d", arch, row, a, r)
	}
	for i := 0; i < 100; i += 4 {
		must(t, flee.Remove(ents[i]))
	}
	for i, e := range ents {
		f := flee.Read(e)
		switch {
		case i%4 == 2 && (f == nil || f.Since != i):
			t.Fatalf("%v: Fleeing %v, want Since %d", e, f, i)
		case i%4 != 2 && f != nil:
			t.Fatalf("%v has Fleeing %v", e, f)
		}
	}
	if flee.Len() != 25 {
		t.Fatalf("%d flee, want 25", flee.Len())
	}
	since := w.Inspect().NextStamp()
	flee.Get(ents[6]).Since = -1
	if !w.Inspect().ChangedSince(ents[6], flee.ID(), since) || w.Inspect().ChangedSince(ents[10], flee.ID(), since) {
		t.Fatal("Changed on a sparse component")
	}
	must(t, w.Despawn(ents[6]))
	again := w.Spawn()
	if flee.Has(again) || flee.Read(ents[6]) != nil || flee.Len() != 24 {
		t.Fatal("a despawned entity's sparse value outlived it")
	}
}
