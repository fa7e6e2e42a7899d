package ecs

import (
	"errors"
	"fmt"
	"slices"
)

// ChildOf is the relation component that makes an entity the child of
// another: hierarchies (a pack and its leader, a turret and its tank) without
// a tree type. Query it like any component (With[ChildOf]), but change it
// only through [World.SetParent] and [World.ClearParent], which keep the
// world's index of children; adding it any other way is refused.
type ChildOf struct {
	parent Entity
}

// Parent is the entity this one is a child of.
func (c ChildOf) Parent() Entity { return c.parent }

// childOfID is ChildOf's component id: NewWorld registers it first.
const childOfID ComponentID = 0

var errChildOfDirect = errors.New("ecs: ChildOf is changed with World.SetParent and World.ClearParent, which keep the children index")

const flagHasChildren = 1

// SetParent makes child a child of parent, replacing any parent it had. It
// returns an error if either is not alive, or if the link would make a cycle.
// Panics if a query is iterating.
func (w *World) SetParent(child, parent Entity) error {
	w.checkUnlocked("SetParent")
	rec, ok := w.record(child)
	if !ok {
		return w.entityError(child)
	}
	prec, ok := w.record(parent)
	if !ok {
		return fmt.Errorf("parent: %w", w.entityError(parent))
	}
	for a := parent; ; {
		if a == child {
			return fmt.Errorf("ecs: %v cannot be a child of %v: it is %v's ancestor (or itself)", child, parent, parent)
		}
		up, ok := w.Parent(a)
		if !ok {
			break
		}
		a = up
	}
	if old, ok := w.Parent(child); ok {
		w.unlinkChild(old, child)
	} else {
		w.moveTo(child, rec, w.tableWith(rec.table, childOfID))
	}
	t := w.tables[rec.table]
	j := t.column(childOfID)
	t.cols[j].(*typedColumn[ChildOf]).data[rec.row] = ChildOf{parent: parent}
	t.ticks[j].markWrite(int(rec.row), w.writeStamp())
	w.children[parent.index] = append(w.children[parent.index], child)
	w.links++
	prec.flags |= flagHasChildren
	return nil
}

// ClearParent makes child a root: it loses its ChildOf. It does nothing if
// child has no parent, and returns an error if child is not alive. Panics if
// a query is iterating.
func (w *World) ClearParent(child Entity) error {
	w.checkUnlocked("ClearParent")
	rec, ok := w.record(child)
	if !ok {
		return w.entityError(child)
	}
	if old, ok := w.Parent(child); ok {
		w.unlinkChild(old, child)
		w.moveTo(child, rec, w.tableWithout(rec.table, childOfID))
	}
	return nil
}

// Parent returns the parent of e, if e is alive and has one.
func (w *World) Parent(e Entity) (Entity, bool) {
	rec, ok := w.record(e)
	if !ok {
		return Entity{}, false
	}
	t := w.tables[rec.table]
	j := t.column(childOfID)
	if j < 0 {
		return Entity{}, false
	}
	return t.cols[j].(*typedColumn[ChildOf]).data[rec.row].parent, true
}

// Children returns the children of e, in the order they were linked; nil if
// it has none or is not alive.
func (w *World) Children(e Entity) []Entity {
	if !w.Alive(e) {
		return nil
	}
	return slices.Clone(w.children[e.index])
}

// DespawnRecursive despawns e and every entity below it in the hierarchy.
// ([World.Despawn] despawns e alone and orphans its children.) It returns
// an [*EntityError] if e is not alive. Panics if a query is iterating.
func (w *World) DespawnRecursive(e Entity) error {
	w.checkUnlocked("DespawnRecursive")
	if !w.Alive(e) {
		return w.entityError(e)
	}
	subtree := []Entity{e}
	for i := 0; i < len(subtree); i++ {
		subtree = append(subtree, w.children[subtree[i].index]...)
	}
	for i := len(subtree) - 1; i >= 0; i-- { // leaves first: nothing is orphaned on the way
		if err := w.Despawn(subtree[i]); err != nil {
			return err
		}
	}
	return nil
}

func (w *World) unlinkChild(parent, child Entity) {
	w.links++
	kids := w.children[parent.index]
	if i := slices.Index(kids, child); i >= 0 {
		kids = slices.Delete(kids, i, i+1)
	}
	if len(kids) == 0 {
		delete(w.children, parent.index)
		w.records[parent.index].flags &^= flagHasChildren
		return
	}
	w.children[parent.index] = kids
}

// hasRelations reports whether e is a child or a parent.
func (w *World) hasRelations(rec *entityRecord) bool {
	return rec.flags&flagHasChildren != 0 || w.tables[rec.table].mask.Has(childOfID)
}

// unlinkForDespawn detaches e from its parent and orphans its children.
func (w *World) unlinkForDespawn(e Entity) {
	if p, ok := w.Parent(e); ok {
		w.unlinkChild(p, e)
	}
	for _, kid := range w.children[e.index] {
		if rec, ok := w.record(kid); ok {
			w.moveTo(kid, rec, w.tableWithout(rec.table, childOfID))
		}
	}
	if _, ok := w.children[e.index]; ok {
		w.links++
		delete(w.children, e.index)
	}
	w.records[e.index].flags &^= flagHasChildren
}
