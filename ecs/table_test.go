package ecs

import (
	"slices"
	"testing"
)

// TestTablesAsToolsSeeThem: each archetype table holds the entities with
// exactly its components, counts its rows and bytes (used never above
// allocated), and keeps its room when it empties, for entities that come
// back.
func TestTablesAsToolsSeeThem(t *testing.T) {
	w := NewWorld()
	pos, hp := NewMap[Position](w), NewMap[Health](w)
	var both []Entity
	for i := range 300 {
		e := pos.Spawn(Position{})
		if i%3 == 0 {
			must(t, hp.Add(e, Health{}))
			both = append(both, e)
		}
	}
	rows := func(comps ...ComponentID) (ArchetypeInfo, bool) {
		slices.Sort(comps)
		for _, a := range w.Inspect().Archetypes() {
			if slices.Equal(a.Components, comps) {
				return a, true
			}
		}
		return ArchetypeInfo{}, false
	}
	a, ok := rows(pos.ID(), hp.ID())
	if !ok || a.Len != 100 || a.Cap < a.Len || a.Bytes <= 0 || a.Bytes > a.CapBytes {
		t.Fatalf("Position+Health: %+v", a)
	}
	if p, _ := rows(pos.ID()); p.Len != 200 {
		t.Fatalf("Position alone: %+v", p)
	}
	for _, e := range both {
		must(t, w.Despawn(e))
	}
	if a, ok := rows(pos.ID(), hp.ID()); !ok || a.Len != 0 || a.CapBytes == 0 {
		t.Fatalf("an emptied table: %+v", a)
	}
	total := 0
	for _, a := range w.Inspect().Archetypes() {
		total += a.Len
	}
	if total != w.Inspect().Stats().Alive {
		t.Fatalf("tables hold %d rows, %d entities alive", total, w.Inspect().Stats().Alive)
	}
}
