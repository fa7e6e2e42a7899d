package ecs

import (
	"slices"
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	w := NewWorld()
	spawn := NewMap2[Position, Health](w)
	var ents []Entity
	for i := range 10 {
		ents = append(ents, spawn.Spawn(Position{X: float64(i)}, Health{HP: i}))
	}
	frozen := NewMap[Frozen](w)
	flee := NewMap[Fleeing](w)
	for _, i := range []int{1, 3} {
		must(t, frozen.Add(ents[i], Frozen{}))
	}
	must(t, flee.Add(ents[5], Fleeing{}))
	pos, hp := ComponentIDOf[Position](w), ComponentIDOf[Health](w)
	fz, fl := ComponentIDOf[Frozen](w), ComponentIDOf[Fleeing](w)

	got, total := w.Inspect().Scan(Filter{With: []ComponentID{pos}}, 0, -1)
	if total != 10 || len(got) != 10 {
		t.Errorf("all: %d of %d", len(got), total)
	}
	got, total = w.Inspect().Scan(Filter{With: []ComponentID{pos}, Without: []ComponentID{fz}}, 2, 3)
	if total != 8 || len(got) != 3 || slices.Contains(got, ents[1]) {
		t.Errorf("window: %v of %d", got, total)
	}
	got, total = w.Inspect().Scan(Filter{With: []ComponentID{fl}}, 0, -1)
	if total != 1 || got[0] != ents[5] {
		t.Errorf("sparse: %v", got)
	}
	since := w.Inspect().NextStamp()
	NewMap[Health](w).Get(ents[7]).HP = 70
	got, _ = w.Inspect().Scan(Filter{Changed: []ComponentID{hp}, Since: since}, 0, -1)
	if !slices.Equal(got, []Entity{ents[7]}) {
		t.Errorf("changed: %v", got)
	}
	must(t, w.SetParent(ents[8], ents[0]))
	got, _ = w.Inspect().Scan(Filter{Parent: ents[0]}, 0, -1)
	if !slices.Equal(got, []Entity{ents[8]}) {
		t.Errorf("children: %v", got)
	}
	got, total = w.Inspect().Scan(Filter{With: []ComponentID{hp}, Match: func(e Entity) bool { return NewMap[Health](w).Read(e).HP < 3 }}, 0, 1)
	if total != 3 || len(got) != 1 {
		t.Errorf("match: %v of %d", got, total)
	}
}

func TestNewValueAndAddValue(t *testing.T) {
	w := NewWorld()
	id := ComponentIDOf[Stats](w)
	v, err := w.Inspect().NewValue(id, map[string]any{"Level": 3, "Home": map[string]any{"X": 1.5}, "Tags": []any{1, 2}, "Name": "orc"})
	if err != nil {
		t.Fatal(err)
	}
	e := w.Spawn()
	if err := w.Inspect().AddValue(e, id, v); err != nil {
		t.Fatal(err)
	}
	s := NewMap[Stats](w).Read(e)
	if s.Level != 3 || s.Home.X != 1.5 || s.Tags != [3]uint16{1, 2, 0} || s.Name != "orc" {
		t.Errorf("value = %+v", *s)
	}
	for fields, want := range map[string]map[string]any{
		"has no field Nope":          {"Nope": 1},
		`Stats.Level wants a number`: {"Level": "x"},
		"has 3 elements, got 4":      {"Tags": []any{1, 2, 3, 4}},
	} {
		if _, err := w.Inspect().NewValue(id, want); err == nil || !strings.Contains(err.Error(), fields) {
			t.Errorf("NewValue(%v) = %v, want %q", want, err, fields)
		}
	}
}

func TestCopyTables(t *testing.T) {
	w := NewWorld()
	NewMap2[Position, Frozen](w).SpawnBatch(3, func(i int, _ Entity, p *Position, _ *Frozen) { p.X = float64(i) })
	e := NewMap[Fleeing](w)
	first := w.Spawn()
	must(t, e.Add(first, Fleeing{Since: 9}))
	copies := w.Inspect().CopyTables()
	var found bool
	for _, c := range copies {
		if len(c.Entities) == 3 {
			found = true
			col := c.Columns[slices.Index(c.Components, ComponentIDOf[Position](w))].Interface().([]Position)
			if col[2].X != 2 {
				t.Errorf("copied column = %v", col)
			}
		}
	}
	if !found {
		t.Error("table not copied")
	}
	ents, vals := w.Inspect().CopySparse(ComponentIDOf[Fleeing](w))
	if len(ents) != 1 || vals.Index(0).Interface().(Fleeing).Since != 9 {
		t.Errorf("sparse copy = %v %v", ents, vals)
	}
}
