package ecs

import (
	"errors"
	"slices"
	"testing"
)

// hierarchy builds root -> a, b; a -> a1, a2; b -> b1 (three levels).
func hierarchy(t *testing.T, w *World) (root, a, b, a1, a2, b1 Entity) {
	t.Helper()
	root, a, b, a1, a2, b1 = w.Spawn(), w.Spawn(), w.Spawn(), w.Spawn(), w.Spawn(), w.Spawn()
	for _, link := range [][2]Entity{{a, root}, {b, root}, {a1, a}, {a2, a}, {b1, b}} {
		if err := w.SetParent(link[0], link[1]); err != nil {
			t.Fatal(err)
		}
	}
	return
}

func TestDespawnRecursive(t *testing.T) {
	w := NewWorld()
	bystander := w.Spawn()
	root, a, b, a1, a2, b1 := hierarchy(t, w)
	if got := w.Children(a); !slices.Equal(got, []Entity{a1, a2}) {
		t.Errorf("Children(a) = %v", got)
	}
	if p, _ := w.Parent(b1); p != b {
		t.Errorf("Parent(b1) = %v", p)
	}
	if err := w.DespawnRecursive(root); err != nil {
		t.Fatal(err)
	}
	for _, e := range []Entity{root, a, b, a1, a2, b1} {
		if w.Alive(e) {
			t.Errorf("%v survived", e)
		}
	}
	if !w.Alive(bystander) || w.Len() != 1 || len(w.rels[childOfID].holders) != 0 {
		t.Errorf("Len %d, children index %v", w.Len(), w.rels[childOfID].holders)
	}
}

func TestDespawnOrphans(t *testing.T) {
	w := NewWorld()
	root, a, b, a1, a2, b1 := hierarchy(t, w)
	must(t, w.Despawn(a))
	for _, e := range []Entity{a1, a2} {
		if _, has := w.Parent(e); has || !w.Alive(e) {
			t.Errorf("%v not orphaned", e)
		}
	}
	if got := w.Children(root); !slices.Equal(got, []Entity{b}) {
		t.Errorf("Children(root) = %v", got)
	}
	if p, _ := w.Parent(b1); p != b {
		t.Error("unrelated link broken")
	}
	if n := NewQuery1[ChildOf](w).Count(); n != 2 {
		t.Errorf("%d entities still ChildOf, want 2 (b, b1)", n)
	}
}

func TestSetParentRules(t *testing.T) {
	w := NewWorld()
	root, a, _, a1, _, _ := hierarchy(t, w)
	if err := w.SetParent(root, a1); err == nil {
		t.Error("cycle accepted")
	}
	if err := w.SetParent(a, a); err == nil {
		t.Error("self-parent accepted")
	}
	other := w.Spawn()
	if err := w.SetParent(a1, other); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(w.Children(a), a1) || !slices.Equal(w.Children(other), []Entity{a1}) {
		t.Error("reparenting did not move the child")
	}
	if err := NewMap[ChildOf](w).Add(other, ChildOf{}); err == nil {
		t.Error("ChildOf added behind the index's back")
	}
	must(t, w.Despawn(other))
	if err := w.SetParent(a1, other); !errors.Is(err, ErrNotAlive) {
		t.Errorf("dead parent: %v", err)
	}
	if err := w.ClearParent(a); err != nil || slices.Contains(w.Children(root), a) {
		t.Errorf("ClearParent: %v", err)
	}
}
