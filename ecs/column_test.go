package ecs

import (
	"fmt"
	"reflect"
	"testing"
)

// TestColumnGrowthAndPointers: columns grow four times over while small,
// then by doubling, and by half again when large, never below what is
// asked; a type holds pointers
// (and so is never copied as bare memory) when any part of it refers to
// memory elsewhere.
func TestColumnGrowthAndPointers(t *testing.T) {
	for _, c := range []struct{ need, have, want int }{
		{1, 0, minRoom}, {65, 64, 256}, {1000, 64, 1000}, {1025, 1024, 4096}, {4097, 4096, 8192},
		{1 << 16, 1 << 16, 1<<16 + 1<<15}, {1 << 20, 1 << 16, 1 << 20},
	} {
		if got := grownCap(c.need, c.have); got != c.want || got < c.need {
			t.Errorf("grownCap(%d, %d) = %d, want %d", c.need, c.have, got, c.want)
		}
	}
	type inner struct{ P *int }
	for _, c := range []struct {
		typ  reflect.Type
		want bool
	}{
		{reflect.TypeFor[Position](), false}, {reflect.TypeFor[[4]int32](), false}, {reflect.TypeFor[Name](), true},
		{reflect.TypeFor[inner](), true}, {reflect.TypeFor[struct{ A [2]inner }](), true},
		{reflect.TypeFor[struct{ M map[int]int }](), true}, {reflect.TypeFor[struct{ F func() }](), true},
	} {
		if got := hasPointers(c.typ); got != c.want {
			t.Errorf("hasPointers(%v) = %v, want %v", c.typ, got, c.want)
		}
	}
}

// TestColumnValuesFollowTheirEntities: values stay with their entity
// through every move between tables, swap-removes and growth.
func TestColumnValuesFollowTheirEntities(t *testing.T) {
	w := NewWorld()
	pos, hp, name := NewMap[Position](w), NewMap[Health](w), NewMap[Name](w)
	want := map[Entity]Position{}
	var ents []Entity
	for i := range 500 {
		e := pos.Spawn(Position{float64(i), -float64(i)})
		want[e] = Position{float64(i), -float64(i)}
		ents = append(ents, e)
		if i%3 == 0 {
			must(t, hp.Add(e, Health{i}))
		}
		if i%4 == 0 {
			must(t, name.Add(e, Name{fmt.Sprint(i)}))
		}
	}
	for i, e := range ents {
		switch i % 5 {
		case 0:
			must(t, w.Despawn(e))
			delete(want, e)
		case 1:
			must(t, hp.Remove(e))
		case 2:
			must(t, name.Add(e, Name{fmt.Sprint(i)}))
		}
	}
	for e, p := range want {
		if got := pos.Read(e); got == nil || *got != p {
			t.Fatalf("%v: %v, want %v", e, got, p)
		}
		i := int(p.X)
		if h := hp.Read(e); (i%3 == 0 && i%5 != 1) != (h != nil) || h != nil && h.HP != i {
			t.Fatalf("%v (%d): Health %v", e, i, h)
		}
		if n := name.Read(e); (i%4 == 0 || i%5 == 2) != (n != nil) || n != nil && n.Value != fmt.Sprint(i) {
			t.Fatalf("%v (%d): Name %v", e, i, n)
		}
	}
	if pos.Len() != len(want) {
		t.Fatalf("%d Positions, want %d", pos.Len(), len(want))
	}
}
