package ecs

import "testing"

// TestMapBatchOverAFilter: AddWhere gives every match the value, and
// overwrites it where an entity had it; AddWhereFunc hands init each
// match's own entity; RemoveWhere takes it from every match; each says
// how many it changed and leaves the rest alone.
func TestMapBatchOverAFilter(t *testing.T) {
	w := NewWorld()
	pos, hp, name := NewMap[Position](w), NewMap[Health](w), NewMap[Name](w)
	var named, plain []Entity
	for i := range 200 {
		e := pos.Spawn(Position{X: float64(i)})
		if i%2 == 0 {
			must(t, name.Add(e, Name{"n"}))
			named = append(named, e)
		} else {
			plain = append(plain, e)
		}
		if i%10 == 0 {
			must(t, hp.Add(e, Health{-1}))
		}
	}
	n, err := hp.AddWhere(Filter{With: []ComponentID{name.ID()}}, Health{7})
	must(t, err)
	if n != len(named) {
		t.Fatalf("AddWhere changed %d, want %d", n, len(named))
	}
	for _, e := range named {
		if h := hp.Read(e); h == nil || h.HP != 7 {
			t.Fatalf("%v: %v", e, h)
		}
	}
	for _, e := range plain {
		if h := hp.Read(e); h != nil {
			t.Fatalf("%v outside the filter got %v", e, h)
		}
	}
	n, err = hp.AddWhereFunc(Filter{Without: []ComponentID{name.ID(), hp.ID()}}, func(e Entity, h *Health) { h.HP = int(pos.Read(e).X) })
	must(t, err)
	if n != len(plain) { // Health went only to named ones so far
		t.Fatalf("AddWhereFunc changed %d", n)
	}
	for _, e := range plain {
		if h := hp.Read(e); h == nil || h.HP != int(pos.Read(e).X) {
			t.Fatalf("%v: init gave %v for X %v", e, h, pos.Read(e).X)
		}
	}
	n, err = hp.RemoveWhere(Filter{With: []ComponentID{name.ID()}})
	must(t, err)
	if n != len(named) || hp.Len() != len(plain) {
		t.Fatalf("RemoveWhere changed %d, %d keep Health; want %d and %d", n, hp.Len(), len(named), len(plain))
	}
}
