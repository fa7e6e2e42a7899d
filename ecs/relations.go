package ecs

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// Relation, embedded in a component type, makes the type a relation: an
// entity that holds the component points at one target entity, and the
// world keeps an index from each target to the entities that point at it,
// so "the bees of hive 0v1" is a lookup ([Rel.Holders], a query's IterOf),
// not a scan of every bee. An entity may hold several relation kinds, each
// pointing at a target of its own:
//
//	type HomeHive struct {
//		ecs.Relation
//		Trips int // a relation may carry data too
//	}
//	home := ecs.NewRel[HomeHive](w)
//	home.Add(bee, hive, HomeHive{})
//
// The target is the world's to keep: it is set when the relation is added
// ([Rel.Add], a Map's spawn [Map2.To]) and changed with [Rel.SetTarget];
// Map.Add and Map.Set of a relation are refused or keep the target. Do
// not assign a whole relation value through a pointer (*p = HomeHive{}):
// that zeroes the target behind the index's back (ecsdebug builds panic
// at the next Tick).
//
// The holders of one target sit in tables of their own, one per archetype
// and target, as in arche and flecs: a query over a target's holders
// (IterOf, AllOf) walks those rows whole, and changing a target moves the
// entity, as adding a component does. A relation with a target per entity
// (every unit aiming at another) makes a table per target: give such a
// kind sparse storage ([StorageChooser]) and it keeps one list per target
// instead, in no table. ChildOf is kept by its list alone, as a sparse
// relation is. A despawned target's tables are reused by later targets.
//
// When a target is despawned, every entity that points at it loses the
// relation (the component is removed, as [World.Despawn] orphans children):
// one rule for every relation, ChildOf included, which the journal shows as
// the removals, made by whoever despawned the target.
type Relation struct{ target Entity }

// Target is the entity the relation points at.
func (r Relation) Target() Entity { return r.target }

var relationType = reflect.TypeFor[Relation]()

// RelationField is the name a relation's target goes by where its value is
// shown field by field (the inspector, recordings, SetField paths):
// "Parent" in ChildOf, "Target" in every other type that embeds Relation,
// "" in a type that does not.
func RelationField(t reflect.Type) string {
	if _, ok := relationOffset(t); !ok {
		return ""
	}
	if t == reflect.TypeFor[ChildOf]() {
		return "Parent"
	}
	return "Target"
}

// ChildOf is the relation that makes an entity the child of another:
// hierarchies (a pack and its leader, a turret and its tank) without a tree
// type. Query it like any component (With[ChildOf]), and change it through
// [World.SetParent] and [World.ClearParent] (or [Rel] of ChildOf), which
// refuse a cycle; [World.Children] keeps the order children were linked in.
type ChildOf struct{ Relation }

// Parent is the entity this one is a child of.
func (c ChildOf) Parent() Entity { return c.target }

// childOfID is ChildOf's component id: NewWorld registers it first.
const childOfID ComponentID = 0

// flagTarget marks an entity some relation points at: its despawn looks
// at the holders.
const flagTarget = 1

// relIndex is one relation kind's index: the entities that point at each
// target, by the target's slot, and each holder's place in its target's
// list, by the holder's slot, so a holder leaves in O(1): the last takes
// its place (the lists are in no particular order).
type relIndex struct {
	id      ComponentID
	short   string
	holders map[uint32][]Entity
	pos     []int32
	// tables lists the tables aimed at each target, by its slot (an
	// aimed kind's, aimed.go).
	tables map[uint32][]*table
	// at is the Relation inside the live entity's value, or nil if it does
	// not hold the kind.
	at func(w *World, e Entity, rec *entityRecord) *Relation
}

// relationOf makes the index of relation kind T (id), or nil if T does
// not embed Relation.
func relationOf[T any](id ComponentID) *relIndex {
	t := reflect.TypeFor[T]()
	off, ok := relationOffset(t)
	if !ok {
		return nil
	}
	return &relIndex{id: id, short: t.Name(), holders: map[uint32][]Entity{}, tables: map[uint32][]*table{},
		at: func(w *World, e Entity, rec *entityRecord) *Relation {
			var p *T
			if s := w.sparse[id]; s != nil {
				p = s.(*sparseSet[T]).get(e)
			} else if tb := w.tables[rec.table]; tb.mask.Has(id) {
				p = &tb.cols[tb.column(id)].(*typedColumn[T]).data[rec.row]
			}
			if p == nil {
				return nil
			}
			return (*Relation)(unsafe.Add(unsafe.Pointer(p), off))
		}}
}

// relationOffset is the byte offset of the Relation a struct type embeds.
func relationOffset(t reflect.Type) (uintptr, bool) {
	if t.Kind() != reflect.Struct {
		return 0, false
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Anonymous && f.Type == relationType {
			return f.Offset, true
		}
	}
	return 0, false
}

// errRelationDirect is the refusal of adding a relation without a target.
func errRelationDirect(kind string) error {
	if kind == "ChildOf" {
		return errChildOfDirect
	}
	return fmt.Errorf("ecs: %s is a relation: add it with a target, ecs.NewRel[%s](w).Add(e, target, value), or spawn it with a Map's To(target)", kind, kind)
}

var errChildOfDirect = errors.New("ecs: ChildOf is changed with World.SetParent and World.ClearParent, which keep the children index")

// relation is kind id's index, or nil if id is not a relation.
func (w *World) relation(id ComponentID) *relIndex {
	if int(id) < len(w.rels) {
		return w.rels[id]
	}
	return nil
}

// relate points e's relation ri at target, adding the component (one
// move) if e lacks it: its value is then v's bytes (nil: zero). e and
// target are alive; the caller checked for a cycle where it matters.
func (w *World) relate(e Entity, rec *entityRecord, ri *relIndex, target Entity, set func(*Relation)) {
	r := ri.at(w, e, rec)
	if r == nil {
		if s := w.sparse[ri.id]; s != nil {
			if s.addZero(e, w.writeStamp()) {
				rec.nsparse++
				w.logStructural(OpAdd, e, int(ri.id))
			}
		} else if w.aimMask.Has(ri.id) {
			tb := w.tables[rec.table]
			m := tb.mask
			m.Set(ri.id)
			w.moveTo(e, rec, w.tableAimed(m, tb, ri.id, target))
		} else {
			w.moveTo(e, rec, w.tableWith(rec.table, ri.id))
		}
		r = ri.at(w, e, rec)
	} else {
		w.unlink(ri, e, r.target)
		if tb := w.tables[rec.table]; w.aimMask.Has(ri.id) && tb.target(ri.id) != target {
			w.moveTo(e, rec, w.tableAimed(tb.mask, tb, ri.id, target))
			r = ri.at(w, e, rec)
		}
		w.markChanged(e, ri.id)
	}
	if set != nil {
		set(r)
	}
	r.target = target
	w.link(ri, e, target)
}

// link adds e to target's holders of ri.
func (w *World) link(ri *relIndex, e, target Entity) {
	w.linkAll(ri, []Entity{e}, target)
}

// linkAll adds ents to target's holders of ri.
func (w *World) linkAll(ri *relIndex, ents []Entity, target Entity) {
	hs := ri.holders[target.index]
	for _, e := range ents {
		ri.place(e, len(hs))
		hs = append(hs, e)
	}
	ri.holders[target.index] = hs
	w.records[target.index].flags |= flagTarget
	if ri.id == childOfID {
		w.links++
	}
}

// place notes that holder e sits at i in its target's list.
func (ri *relIndex) place(e Entity, i int) {
	if n := int(e.index) + 1; n > len(ri.pos) {
		if n > cap(ri.pos) {
			ri.pos = withRoom(ri.pos, max(n, 2*cap(ri.pos)))
		}
		ri.pos = ri.pos[:n]
	}
	ri.pos[e.index] = int32(i)
}

// unlink takes e out of target's holders of ri: the list's last holder
// takes its place.
func (w *World) unlink(ri *relIndex, e, target Entity) {
	hs := ri.holders[target.index]
	if i := int(ri.pos[e.index]); i < len(hs) && hs[i] == e {
		last := hs[len(hs)-1]
		hs[i] = last
		ri.place(last, i)
		hs = hs[:len(hs)-1]
	}
	if len(hs) == 0 {
		delete(ri.holders, target.index)
	} else {
		ri.holders[target.index] = hs
	}
	if ri.id == childOfID {
		w.links++
	}
}

// unrelate takes relation ri from e (one move), unlinking it first.
func (w *World) unrelate(e Entity, rec *entityRecord, ri *relIndex) {
	r := ri.at(w, e, rec)
	if r == nil {
		return
	}
	w.unlink(ri, e, r.target)
	if s := w.sparse[ri.id]; s != nil {
		if s.remove(e) {
			rec.nsparse--
			w.logStructural(OpRemove, e, int(ri.id))
		}
		return
	}
	w.moveTo(e, rec, w.tableWithout(rec.table, ri.id))
}

// hasRelations reports whether e holds a relation or is a target of one.
func (w *World) hasRelations(rec *entityRecord) bool {
	if rec.flags&flagTarget != 0 {
		return true
	}
	if w.tables[rec.table].mask.ContainsAny(&w.relMask) {
		return true
	}
	return rec.nsparse > 0 && w.sparseRelations
}

// unlinkForDespawn detaches e from the targets it points at, and takes
// every relation that points at e from its holders.
func (w *World) unlinkForDespawn(e Entity) {
	rec := &w.records[e.index]
	for _, ri := range w.relKinds {
		if r := ri.at(w, e, rec); r != nil {
			w.unlink(ri, e, r.target)
		}
	}
	if rec.flags&flagTarget == 0 {
		return
	}
	for _, ri := range w.relKinds {
		hs, ok := ri.holders[e.index]
		if !ok {
			continue
		}
		delete(ri.holders, e.index)
		if ri.id == childOfID {
			w.links++
		}
		for _, h := range hs {
			hrec, ok := w.record(h)
			if !ok {
				continue
			}
			if s := w.sparse[ri.id]; s != nil {
				if s.remove(h) {
					hrec.nsparse--
					w.logStructural(OpRemove, h, int(ri.id))
				}
				continue
			}
			w.moveTo(h, hrec, w.tableWithout(hrec.table, ri.id))
		}
	}
	w.retireTargetTables(e)
	rec.flags &^= flagTarget
}

// SetParent makes child a child of parent, replacing any parent it had. It
// returns an error if either is not alive, or if the link would make a cycle.
// Panics if a query is iterating.
func (w *World) SetParent(child, parent Entity) error {
	w.checkUnlocked("SetParent")
	rec, ok := w.record(child)
	if !ok {
		return w.entityError(child)
	}
	if _, ok := w.record(parent); !ok {
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
	w.relate(child, rec, w.rels[childOfID], parent, nil)
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
	w.unrelate(child, rec, w.rels[childOfID])
	return nil
}

// Parent returns the parent of e, if e is alive and has one.
func (w *World) Parent(e Entity) (Entity, bool) {
	return w.targetOf(e, w.rels[childOfID])
}

// targetOf is the target e's relation ri points at, if e is alive and
// holds it.
func (w *World) targetOf(e Entity, ri *relIndex) (Entity, bool) {
	rec, ok := w.record(e)
	if !ok {
		return Entity{}, false
	}
	if r := ri.at(w, e, rec); r != nil {
		return r.target, true
	}
	return Entity{}, false
}

// Children returns the children of e, in no particular order (a child
// that leaves is replaced by the last); nil if it has none or is not
// alive. The slice is a copy ([Rel.Holders] of ChildOf is the same list,
// not copied).
func (w *World) Children(e Entity) []Entity {
	if !w.Alive(e) {
		return nil
	}
	return slices.Clone(w.rels[childOfID].holders[e.index])
}

// DespawnRecursive despawns e and every entity below it in the hierarchy.
// ([World.Despawn] despawns e alone and orphans its children.) It returns
// an [*EntityError] if e is not alive. Panics if a query is iterating.
func (w *World) DespawnRecursive(e Entity) error {
	w.checkUnlocked("DespawnRecursive")
	if !w.Alive(e) {
		return w.entityError(e)
	}
	children := w.rels[childOfID].holders
	subtree := []Entity{e}
	for i := 0; i < len(subtree); i++ {
		subtree = append(subtree, children[subtree[i].index]...)
	}
	for i := len(subtree) - 1; i >= 0; i-- { // leaves first: nothing is orphaned on the way
		if err := w.Despawn(subtree[i]); err != nil {
			return err
		}
	}
	return nil
}
