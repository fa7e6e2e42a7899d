package ecs

import "testing"

// TestSlotsAndTablesInside: a freed slot comes back with the next
// generation, and its old handle finds no record; the tables reached by
// adding a component and removing it again are the same tables, one per
// set of components.
func TestSlotsAndTablesInside(t *testing.T) {
	w := NewWorld()
	e := w.Spawn()
	if _, ok := w.record(e); !ok {
		t.Fatal("a live entity has no record")
	}
	must(t, w.Despawn(e))
	if _, ok := w.record(e); ok {
		t.Fatal("a dead entity has a record")
	}
	next := w.Spawn()
	if next.Index() != e.Index() || next.Generation() != e.Generation()+1 {
		t.Fatalf("the slot came back as %v after %v", next, e)
	}
	pos, hp := ComponentIDOf[Position](w), ComponentIDOf[Health](w)
	empty := w.tableFor(Mask{})
	withPos := w.tableWith(empty, pos)
	withBoth := w.tableWith(withPos, hp)
	var m Mask
	m.Set(hp)
	m.Set(pos)
	if w.tableFor(m) != withBoth || w.tableWithout(withBoth, hp) != withPos || w.tableWithout(withPos, pos) != empty || w.tableWith(withBoth, pos) != withBoth {
		t.Fatal("one set of components, two tables")
	}
	if w.writeStamp() != w.changeStamp.Load()+1 {
		t.Fatal("a write outside a run takes the stamp the next run will get")
	}
}
