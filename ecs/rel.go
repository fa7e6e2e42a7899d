package ecs

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Rel reaches relation R, a component type that embeds [Relation]: it
// adds the relation with its target, changes the target, and lists the
// entities that point at a target. Create it once and keep it.
//
//	home := ecs.NewRel[HomeHive](w)
//	home.Add(bee, hive, HomeHive{})
//	for _, bee := range home.Holders(hive) { ... }
//	home.SetTarget(bee, otherHive) // a move to otherHive's table
type Rel[R any] struct {
	w  *World
	m  *Map[R]
	ri *relIndex
}

// NewRel returns a [Rel] of R, registering R on first use. Panics if R
// does not embed [Relation].
func NewRel[R any](w *World) *Rel[R] {
	m := NewMap[R](w)
	ri := w.relation(m.id)
	if ri == nil {
		panic(fmt.Sprintf("ecs: %s is not a relation: embed ecs.Relation in it", typeName(reflect.TypeFor[R]())))
	}
	return &Rel[R]{w: w, m: m, ri: ri}
}

// ID is R's component id.
func (r *Rel[R]) ID() ComponentID { return r.m.id }

// Add gives e the relation R pointing at target, with the value v (its
// target aside), in one move; if e holds R already, its value and target
// are replaced (a move when the target changes: the holders of one target
// sit in tables of their own, see [Relation]). It returns an error if e or target is not
// alive. Panics if a query is iterating (queue it with [RelateLater]).
func (r *Rel[R]) Add(e, target Entity, v R) error {
	return r.w.relateChecked(e, target, r.ri, func(p *Relation) {
		t := p.target
		*r.m.valueAt(p) = v
		p.target = t
	})
}

// SetTarget points e's R at target, the value kept: one move, to the
// table of target's holders (none for ChildOf or a sparse relation). It returns an error if e does not hold R or either is not alive.
// Panics if a query is iterating.
func (r *Rel[R]) SetTarget(e, target Entity) error {
	if _, ok := r.Target(e); !ok {
		if !r.w.Alive(e) {
			return r.w.entityError(e)
		}
		return &ComponentError{Entity: e, Component: r.ri.short}
	}
	return r.w.relateChecked(e, target, r.ri, nil)
}

// Target is the entity e's R points at, if e is alive and holds R.
func (r *Rel[R]) Target(e Entity) (Entity, bool) { return r.w.targetOf(e, r.ri) }

// Remove takes R from e; it does nothing if e lacks R. It returns an
// [*EntityError] if e is not alive. Panics if a query is iterating.
func (r *Rel[R]) Remove(e Entity) error {
	rec, err := r.w.changing("Remove", e)
	if err != nil {
		return err
	}
	r.w.unrelate(e, rec, r.ri)
	return nil
}

// Holders lists the entities whose R points at target, in no particular
// order (a holder that leaves is replaced by the last; holders spawned
// together stay together); nil if none or target is not alive. The list is the
// world's own: read it, do not change it, and do not keep it past the
// next structural change.
func (r *Rel[R]) Holders(target Entity) []Entity {
	if !r.w.Alive(target) {
		return nil
	}
	return r.ri.holders[target.index]
}

// Count is how many entities' R points at target.
func (r *Rel[R]) Count(target Entity) int { return len(r.Holders(target)) }

// Of names R and a target, for a query's run over the entities that
// point at it ([Query2.IterOf]) and a [Filter]'s Related.
func (r *Rel[R]) Of(target Entity) RelTarget { return RelTarget{Kind: r.m.id, Target: target} }

// valueAt is the R value holding the Relation p points into.
func (m *Map[R]) valueAt(p *Relation) *R {
	off, _ := relationOffset(reflect.TypeFor[R]())
	return (*R)(unsafe.Add(unsafe.Pointer(p), -int(off)))
}

// relateChecked is relate for the typed API: e and target alive, ChildOf
// refusing a cycle.
func (w *World) relateChecked(e, target Entity, ri *relIndex, set func(*Relation)) error {
	if ri.id == childOfID {
		if err := w.SetParent(e, target); err != nil || set == nil {
			return err
		}
		rec := &w.records[e.index]
		set(ri.at(w, e, rec))
		return nil
	}
	rec, err := w.changing("Relate", e)
	if err != nil {
		return err
	}
	if !w.Alive(target) {
		return fmt.Errorf("target: %w", w.entityError(target))
	}
	w.relate(e, rec, ri, target, set)
	return nil
}

// RelateLater queues [Rel.Add]: at the apply, e gets the relation R
// pointing at target, with the value v.
func RelateLater[R any](c *Commands, e, target Entity, v R) {
	c.relates = append(c.relates, func(w *World) error { return NewRel[R](w).Add(e, target, v) })
	c.push(cmdRelate, e, 0, int32(len(c.relates)-1))
}

// relSlot is a relation among a Map's components, and the target its
// spawns point it at (zero: none given).
type relSlot struct {
	ri     *relIndex
	target Entity
}

// aimed is slots with targets, one each in order. Panics if the count is
// off or a target is not alive.
func (w *World) aimed(slots []relSlot, targets []Entity) []relSlot {
	if len(targets) != len(slots) {
		panic(fmt.Sprintf("ecs: To takes a target for each relation the map holds: %d, got %d", len(slots), len(targets)))
	}
	out := make([]relSlot, len(slots))
	for i, s := range slots {
		if !w.Alive(targets[i]) {
			panic(fmt.Sprintf("ecs: To: %s's target %v is not alive", s.ri.short, targets[i]))
		}
		out[i] = relSlot{ri: s.ri, target: targets[i]}
	}
	return out
}

// mustAim panics unless every slot has a live target: a spawn of a
// relation needs one (the map's To).
func (w *World) mustAim(slots []relSlot) {
	for _, s := range slots {
		switch {
		case s.target.IsZero():
			panic(fmt.Sprintf("ecs: %s is a relation: spawn it through the map's To(target)", s.ri.short))
		case !w.Alive(s.target):
			panic(fmt.Sprintf("ecs: %s's target %v is not alive", s.ri.short, s.target))
		}
	}
}

// aimSpawn is the table entities of base's components go to when spawned
// with the slots' targets: the one aimed at them (aimed.go).
func (w *World) aimSpawn(base *table, slots []relSlot) *table {
	t := base
	for _, s := range slots {
		if w.aimMask.Has(s.ri.id) {
			t = w.tables[w.tableAimed(t.mask, t, s.ri.id, s.target)]
		}
	}
	return t
}

// relateSpawned points the relations of entities just spawned at their
// slots' targets (mustAim checked them).
func (w *World) relateSpawned(slots []relSlot, ents []Entity) {
	for _, s := range slots {
		for _, e := range ents {
			s.ri.at(w, e, &w.records[e.index]).target = s.target
		}
		w.linkAll(s.ri, ents, s.target)
	}
}

// aim points the values of entities just spawned (vals, parallel to ents)
// at the target the slots give T, if T is a relation among them: a plain
// loop over the block's values, and the block appended to the holders.
func (m *Map[T]) aim(slots []relSlot, vals []T, ents []Entity) {
	if !m.rel {
		return
	}
	for _, s := range slots {
		if s.ri.id != m.id {
			continue
		}
		off, _ := relationOffset(reflect.TypeFor[T]())
		for i := range vals {
			(*Relation)(unsafe.Add(unsafe.Pointer(&vals[i]), off)).target = s.target
		}
		m.w.linkAll(s.ri, ents, s.target)
	}
}
