package ecs

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestObservationAPI(t *testing.T) {
	w := NewWorld()
	spawn := NewMap2[Position, Health](w)
	var ents []Entity
	for i := range 5 {
		ents = append(ents, spawn.Spawn(Position{X: float64(i)}, Health{HP: i}))
	}
	must(t, w.Despawn(ents[1]))
	must(t, w.Despawn(ents[3]))
	again := w.Spawn() // reuses slot 3 (most recently freed)
	must(t, w.Despawn(again))

	var found bool
	for _, a := range w.Inspect().Archetypes() {
		if len(a.Components) == 2 {
			found = true
			if a.Len != 3 || a.Cap < 3 || a.Bytes != 3*(8+16+8+8+8) {
				t.Errorf("archetype = %+v", a)
			}
		}
	}
	if !found {
		t.Error("Position+Health archetype missing")
	}
	tb, row, ok := w.Inspect().Location(ents[4])
	if !ok || w.tables[tb].entities[row] != ents[4] {
		t.Errorf("Location = %d, %d, %v", tb, row, ok)
	}
	if _, _, ok := w.Inspect().Location(ents[1]); ok {
		t.Error("location of a dead entity")
	}
	st := w.Inspect().Stats()
	if st.Alive != 3 || st.Free != 2 || st.Slots != 5 || st.Highest != 4 || st.Retired != 0 {
		t.Errorf("Stats = %+v", st)
	}
	top := w.Inspect().MostRecycled(2)
	if len(top) != 2 || top[0].Index != 3 || top[0].Generation != 3 || top[0].Alive {
		t.Errorf("MostRecycled = %+v", top)
	}
	v, ok := w.Inspect().Value(ents[2], ComponentIDOf[Health](w))
	if !ok || v.Field(0).Int() != 2 {
		t.Errorf("Value = %v", v)
	}
	b, ok := w.Inspect().Bytes(ents[2], ComponentIDOf[Position](w))
	if !ok || len(b) != 16 || math.Float64frombits(binary.LittleEndian.Uint64(b)) != 2 {
		t.Errorf("Bytes = %v", b)
	}
	if got, _ := w.Inspect().ArchetypeEntities(tb, 1, 10); len(got) != 2 {
		t.Errorf("ArchetypeEntities = %v", got)
	}
	// Out-of-range arguments page by the one rule (Pager: a negative
	// offset counts as 0, a negative limit keeps every row), never a panic.
	for _, c := range []struct{ off, lim, want int }{{-5, 10, 3}, {-1 << 62, 1, 1}, {1 << 62, 10, 0}, {0, -3, 3}, {1, 1 << 62, 2}, {2, math.MaxInt, 1}, {math.MaxInt, math.MaxInt, 0}} {
		got, n := w.Inspect().ArchetypeEntities(tb, c.off, c.lim)
		if len(got) != c.want || n != 3 {
			t.Errorf("ArchetypeEntities(off %d, lim %d) = %v, %d", c.off, c.lim, got, n)
		}
	}
}
