package ecs

import "slices"

// A relation kind other than ChildOf, stored in tables, is aimed: its
// holders of one target sit in tables of their own, one per archetype and
// target, as arche and flecs keep them. A query over one target's holders
// (IterOf, AllOf) walks those tables alone, whole rows at a time, and a
// count of them is a sum of table lengths; a change of target moves the
// entity to the target's table, as adding a component does. ChildOf is not
// aimed (a hierarchy's many parents would make a table each, and
// SetParent keeps a child where it is); a sparse relation has no table.

// aimKey finds a table among those of one mask by its targets' hash:
// tables whose targets hash alike share the bucket.
type aimKey struct {
	mask Mask
	h    uint64
}

// noAim, as tableAimed's kind: no target changed.
const noAim = ^ComponentID(0)

// aimHash hashes a table's targets (FNV-1a over their handles).
func aimHash(targets []Entity) uint64 {
	h := uint64(14695981039346656037)
	for _, e := range targets {
		h = (h ^ uint64(e.index)) * 1099511628211
		h = (h ^ uint64(e.gen)) * 1099511628211
	}
	return h
}

// target is the entity t's holders of aimed kind id point at (zero if t
// lacks id, or its holders were put there before they had a target).
func (t *table) target(id ComponentID) Entity {
	for i, k := range t.aims {
		if k == id {
			return t.targets[i]
		}
	}
	return Entity{}
}

// tableAimed returns the table of exactly the components of m whose aimed
// relations point where from's do (from may be nil: at none), except kind,
// which points at target (kind noAim: none changed). It makes the
// table if there is none, taking a retired table of the same mask first.
func (w *World) tableAimed(m Mask, from *table, kind ComponentID, target Entity) uint32 {
	var am Mask
	for i := range am {
		am[i] = m[i] & w.aimMask[i]
	}
	if am.IsZero() {
		return w.tableFor(m)
	}
	w.aimIDs = am.AppendIDs(w.aimIDs[:0]) // scratch: a spawn's lookup allocates nothing
	targets := w.aimBuf[:0]
	for _, id := range w.aimIDs {
		switch {
		case id == kind:
			targets = append(targets, target)
		case from != nil:
			targets = append(targets, from.target(id))
		default:
			targets = append(targets, Entity{})
		}
	}
	w.aimBuf = targets
	if !slices.ContainsFunc(targets, func(e Entity) bool { return !e.IsZero() }) {
		return w.tableFor(m) // aimed at nothing: the mask's own table
	}
	key := aimKey{mask: m, h: aimHash(targets)}
	for _, id := range w.byAim[key] {
		if slices.Equal(w.tables[id].targets, targets) {
			return id
		}
	}
	var t *table
	if free := w.retiredTables[m]; len(free) > 0 {
		t = w.tables[free[len(free)-1]]
		w.retiredTables[m] = free[:len(free)-1]
	} else {
		t = w.tables[w.newTableFor(m)]
	}
	t.aims, t.targets, t.retired = slices.Clone(w.aimIDs), slices.Clone(targets), false
	w.byAim[key] = append(w.byAim[key], t.id)
	for i, id := range t.aims {
		if e := t.targets[i]; !e.IsZero() { // one target in several kinds lists t once a kind
			ri := w.rels[id]
			ri.tables[e.index] = append(ri.tables[e.index], t)
			w.records[e.index].flags |= flagTarget
		}
	}
	return t.id
}

// retireTargetTables takes the tables aimed at target (now empty: its
// holders lost their relations) out of use, for a later table of their
// mask: a game whose targets come and go does not grow a table for each.
// Every edge into such a table comes from a table aimed at target too, so
// their edge caches are cleared together.
func (w *World) retireTargetTables(target Entity) {
	for _, ri := range w.relKinds {
		ts, ok := ri.tables[target.index]
		if !ok {
			continue
		}
		delete(ri.tables, target.index)
		for _, t := range ts {
			if t.aims != nil && t.len() == 0 { // an entity aimed at itself leaves its table last
				w.retireTable(t)
			}
		}
	}
}

// retireTable takes the empty aimed table t out of use.
func (w *World) retireTable(t *table) {
	key := aimKey{mask: t.mask, h: aimHash(t.targets)}
	if b := slices.DeleteFunc(w.byAim[key], func(id uint32) bool { return id == t.id }); len(b) > 0 {
		w.byAim[key] = b
	} else {
		delete(w.byAim, key)
	}
	for i, id := range t.aims {
		e := t.targets[i]
		if e.IsZero() {
			continue
		}
		ri := w.rels[id]
		if ts := slices.DeleteFunc(ri.tables[e.index], func(o *table) bool { return o == t }); len(ts) > 0 {
			ri.tables[e.index] = ts
		} else {
			delete(ri.tables, e.index)
		}
	}
	t.aims, t.targets, t.retired = nil, nil, true
	clear(t.add)
	clear(t.remove)
	t.swaps, t.nswap = [4]swapEdge{}, 0
	w.retiredTables[t.mask] = append(w.retiredTables[t.mask], t.id)
}

// retireAllAimed retires every aimed table: a restore despawned all.
func (w *World) retireAllAimed() {
	for _, t := range w.tables {
		if t.aims != nil {
			w.retireTable(t)
		}
	}
}
