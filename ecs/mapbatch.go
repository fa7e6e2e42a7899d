package ecs

// AddWhere gives every entity f passes T set to v, as [Map.Add] would one
// by one (an entity that has T gets v written over its value), and returns
// how many entities f passed. Table-stored T moves each table's rows at
// once (see [World.ExchangeWhere]). Panics if a query is iterating.
func (m *Map[T]) AddWhere(f Filter, v T) (int, error) {
	return m.addWhere(f, func(_ Entity, p *T) { *p = v }, func(vs []T) {
		for i := range vs {
			vs[i] = v
		}
	})
}

// AddWhereFunc gives every entity f passes T and lets init set it up: the
// zero value for an entity that just got T, its value for one that had it
// (marked changed). It returns how many entities f passed. Panics if a
// query is iterating, and if init spawns, despawns, adds or removes (queue
// that in [Commands]).
func (m *Map[T]) AddWhereFunc(f Filter, init func(e Entity, v *T)) (int, error) {
	return m.addWhere(f, init, nil)
}

// RemoveWhere takes T away from every entity f passes, as [Map.Remove]
// would one by one, and returns how many entities f passed. Panics if a
// query is iterating.
func (m *Map[T]) RemoveWhere(f Filter) (int, error) {
	return m.w.RemoveWhere(f, m.id)
}

// addWhere is AddWhere and AddWhereFunc: set sees each entity's T once it
// has it, run with structural changes locked out (it may be the user's);
// fill, if not nil, does what set does to a run of rows at once.
func (m *Map[T]) addWhere(f Filter, set func(e Entity, v *T), fill func(vs []T)) (int, error) {
	w := m.w
	w.checkUnlocked("AddWhere")
	if ri := m.w.relation(m.id); ri != nil {
		return 0, errRelationDirect(ri.short)
	}
	call := func(e Entity, p *T) {
		w.lockForInit()
		defer w.unlockForInit()
		set(e, p)
	}
	cache := w.batch.tablesOf(w, &f)
	if m.sparse != nil || cache == nil { // entity by entity
		ents, _ := w.Inspect().Scan(f, 0, -1)
		for _, e := range ents {
			if !m.Has(e) {
				if err := w.Inspect().AddID(e, m.id); err != nil {
					return 0, err
				}
			}
			call(e, m.Get(e))
		}
		return len(ents), nil
	}
	tick := w.writeStamp()
	return w.exchangeWhere(&f, cache, []ComponentID{m.id}, nil, func(t *table, first, n int, moved bool) {
		col := m.cols.of(t.id)
		if !moved {
			for r := first; r < first+n; r++ {
				col.t.markWrite(r, tick)
			}
		}
		if fill != nil {
			fill(col.data[first : first+n])
			return
		}
		for r := first; r < first+n; r++ {
			call(t.entities[r], &col.data[r])
		}
	})
}
