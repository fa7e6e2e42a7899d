package ecs

// structure is a filter on what entities hold, compiled against the world:
// the one implementation of "has, has not, changed, added, child of" that
// every path selecting entities runs (typed queries, the tools' Scan and
// copies, batch operations). Tests on table components are the table's
// masks, which pick whole tables (through a query cache); the rest test
// rows: sparse components had and lacked, a component written or added
// since a tick, the parent, a last test of the caller's.
type structure struct {
	key        filterKey     // what a table must have and lack
	sparseAll  []sparseStore // sparse components a row's entity must have
	sparseNone []sparseStore // ... and must lack
	stamps     []stampFilter // Changed and Added tests
	rel        *relIndex     // with target: the entities that point at target through rel only
	target     Entity
	match      func(Entity) bool
	nothing    bool // it requires a component no one has registered: nothing passes
}

// stampFilter is a Changed or Added test resolved to a component.
type stampFilter struct {
	id     ComponentID
	added  bool
	sparse sparseStore // the component's set when it is sparse; nil for a table column
}

// require adds "has id".
func (s *structure) require(w *World, id ComponentID) {
	sp := w.sparse[id]
	if sp == nil {
		s.key.all.Set(id)
		return
	}
	for _, have := range s.sparseAll {
		if have == sp {
			return
		}
	}
	s.sparseAll = append(s.sparseAll, sp)
}

// exclude adds "has not id".
func (s *structure) exclude(w *World, id ComponentID) {
	if sp := w.sparse[id]; sp != nil {
		s.sparseNone = append(s.sparseNone, sp)
	} else {
		s.key.none.Set(id)
	}
}

// stamp adds "id written (or, added, added) since the tick a run gives":
// an entity without id does not pass.
func (s *structure) stamp(w *World, id ComponentID, added bool) {
	s.require(w, id)
	w.trackChanges(id)
	s.stamps = append(s.stamps, stampFilter{id: id, added: added, sparse: w.sparse[id]})
}

// structureOf compiles f. A component id no one registered is had by no
// entity: requiring it passes nothing, excluding it everything.
func (w *World) structureOf(f *Filter) structure {
	var s structure
	known := func(id ComponentID) bool {
		ok := int(id) < len(w.sparse)
		s.nothing = s.nothing || !ok
		return ok
	}
	for _, id := range f.With {
		if known(id) {
			s.require(w, id)
		}
	}
	for _, id := range f.Changed {
		if known(id) {
			s.stamp(w, id, false)
		}
	}
	for _, id := range f.Added {
		if known(id) {
			s.stamp(w, id, true)
		}
	}
	for _, id := range f.Without {
		if int(id) < len(w.sparse) {
			s.exclude(w, id)
		}
	}
	s.match = f.Match
	switch {
	case !f.Related.Target.IsZero():
		if ri := w.relation(f.Related.Kind); ri != nil {
			s.rel, s.target = ri, f.Related.Target
		} else {
			s.nothing = true // no entity holds a relation the world does not have
		}
	case !f.Parent.IsZero():
		s.rel, s.target = w.rels[childOfID], f.Parent
	}
	if s.rel != nil {
		s.require(w, s.rel.id)
	}
	return s
}

// matches reports whether t's components pass the table tests.
func (s *structure) matches(t *table) bool {
	return !s.nothing && t.mask.ContainsAll(&s.key.all) && !t.mask.ContainsAny(&s.key.none)
}

// rowTests reports whether rows of a matching table are tested one by one.
func (s *structure) rowTests() bool {
	return len(s.sparseAll)+len(s.sparseNone)+len(s.stamps) > 0 || s.rel != nil || s.match != nil
}

// stampColumns sets cols[i] to the stamps of table t's column for the
// i-th stamp test (nil for a sparse component), and returns them.
func (s *structure) stampColumns(t *table, cols []*colStamps) []*colStamps {
	cols = cols[:len(s.stamps)]
	for i, f := range s.stamps {
		cols[i] = nil
		if f.sparse == nil {
			cols[i] = t.ticks[t.column(f.id)]
		}
	}
	return cols
}

// groupMayPass reports whether a row of group g may pass every stamp test
// on a table column (a group's maximum bounds both its changed and added
// stamps): false lets a scan skip the group whole.
func (s *structure) groupMayPass(cols []*colStamps, g int, since uint32) bool {
	for _, t := range cols {
		if t != nil && !t.groupDirty(g, since) {
			return false
		}
	}
	return true
}

// rowPasses reports whether row r, of entity e, passes every row test;
// cols are the table's stamp columns (stampColumns).
func (s *structure) rowPasses(w *World, cols []*colStamps, e Entity, r int, since uint32) bool {
	for _, sp := range s.sparseAll {
		if !sp.has(e) {
			return false
		}
	}
	for _, sp := range s.sparseNone {
		if sp.has(e) {
			return false
		}
	}
	for i, f := range s.stamps {
		switch t := cols[i]; {
		case t != nil && f.added:
			if !t.addedSince(r, since) {
				return false
			}
		case t != nil:
			if !t.changedSince(r, since) {
				return false
			}
		case f.added:
			if !f.sparse.addedSince(e, since) {
				return false
			}
		case !f.sparse.changedSince(e, since):
			return false
		}
	}
	if s.rel != nil {
		if t, ok := w.targetOf(e, s.rel); !ok || t != s.target {
			return false
		}
	}
	return s.match == nil || s.match(e)
}

// holders is the entities a target test names (in the order they were
// linked), when s has one: what a scan walks instead of the tables.
func (s *structure) holders(w *World) ([]Entity, bool) {
	if s.rel == nil {
		return nil, false
	}
	if !w.Alive(s.target) {
		return nil, true
	}
	return s.rel.holders[s.target.index], true
}
