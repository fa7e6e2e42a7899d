package ecs

import "testing"

// Map.Spawn and Map.SpawnBatch make entities with one component, table or
// sparse, journaled as spawns, each with its value; a batch's init sees
// the entities in order.
func TestMapSpawnOneComponent(t *testing.T) {
	type Health struct{ HP int }
	w := NewWorld()
	w.Inspect().EnableJournal(4096)
	hp := NewMap[Health](w)
	e := hp.Spawn(Health{HP: 7})
	if v := hp.Get(e); v == nil || v.HP != 7 || len(w.Inspect().ComponentsOf(e)) != 1 {
		t.Fatalf("Spawn: %v, components %v", v, w.Inspect().ComponentsOf(e))
	}
	var seen []Entity
	hp.SpawnBatch(600, func(i int, ent Entity, v *Health) {
		v.HP = i
		seen = append(seen, ent)
	})
	if len(seen) != 600 || hp.Len() != 601 {
		t.Fatalf("SpawnBatch made %d, Len %d", len(seen), hp.Len())
	}
	for i, ent := range seen {
		if v := hp.Get(ent); v == nil || v.HP != i {
			t.Fatalf("entity %d of the batch: %v", i, v)
		}
	}
	spawns := 0
	for _, j := range w.Inspect().Journal() {
		if j.Op == OpSpawn {
			spawns++
		}
	}
	if spawns != 601 {
		t.Fatalf("%d spawns journaled, want 601", spawns)
	}
	tags := NewMap[sparseTag](w)
	s := tags.Spawn(sparseTag{N: 3})
	tags.SpawnBatch(3, func(i int, _ Entity, v *sparseTag) { v.N = 10 + i })
	if v := tags.Get(s); v == nil || v.N != 3 || tags.Len() != 4 {
		t.Fatalf("sparse Spawn: %v, Len %d", v, tags.Len())
	}
}

// sparseTag is kept in a sparse set.
type sparseTag struct{ N int }

func (sparseTag) Storage() StorageKind { return SparseStorage }
