package ecs

import (
	"errors"
	"fmt"
	"slices"
)

// Batch structural operations.
//
// A batch operation changes every entity a [Filter] passes, with the same
// outcome as the single operation applied to each of them in turn, in the
// order [Inspection.Scan] visits them: the same handles, tables and rows,
// values, change stamps, journal entries, free list and writer. What differs
// is the cost. A filter without row tests (With and Without on table
// components only) passes whole tables, so each table's rows move to their
// new table in one copy per column (or, to despawn, are freed and the table
// emptied), instead of a row move and a swap-remove per entity. Filters with
// row tests (ticks, sparse components, Parent, Match) and tables whose
// entities are in a hierarchy take the single operations, entity by entity.

// errBothWays is the error of an exchange that names a component to add
// and to remove at once.
var errBothWays = errors.New("ecs: a component is both added and removed")

// DespawnWhere despawns every entity f passes, as [World.Despawn] would one
// by one, and returns how many. Panics if a query is iterating (queue it
// in [Commands] instead).
func (w *World) DespawnWhere(f Filter) int {
	w.checkUnlocked("DespawnWhere")
	return w.despawnWhere(&f)
}

func (w *World) despawnWhere(f *Filter) int {
	tables, _, ents := w.batchTargets(f, nil)
	defer w.batch.done()
	if slices.ContainsFunc(tables, w.tableInHierarchy) {
		// A despawn orphans children, which then move to other tables:
		// entity by entity, from the list as it is now.
		tables, ents = nil, w.tableEntities(tables)
	}
	n := 0
	for _, t := range tables {
		n += t.len()
		w.alive -= t.len()
		if w.deaths.last != nil {
			for _, e := range t.entities {
				w.lastLook(e)
			}
		}
		free := slices.Grow(w.free, t.len()) // room: the appends below do not grow it
		for _, e := range t.entities {
			rec := &w.records[e.index]
			if rec.nsparse > 0 {
				w.dropSparse(e)
			}
			w.noteDeath(e.index, rec)
			rec.kill()
			if w.nextGeneration(e.index, rec) {
				free = append(free, e.index)
			}
		}
		w.free = free
		if w.journal.on() {
			for _, e := range t.entities {
				w.logStructural(OpDespawn, e, NoComponent)
			}
		}
		t.clearRows()
	}
	for _, e := range ents {
		if w.despawn(e) == nil {
			n++
		}
	}
	return n
}

// AddWhere gives every entity f passes the components ids with zero
// values (an entity that has one keeps its value), as [Inspection.AddID]
// would one by one, and returns how many entities f passed. Panics if a
// query is iterating or an id is not registered.
func (w *World) AddWhere(f Filter, ids ...ComponentID) (int, error) {
	return w.ExchangeWhere(f, ids, nil)
}

// RemoveWhere takes the components ids away from every entity f passes, as
// [Inspection.RemoveID] would one by one, and returns how many entities f
// passed. Panics if a query is iterating or an id is not registered.
func (w *World) RemoveWhere(f Filter, ids ...ComponentID) (int, error) {
	return w.ExchangeWhere(f, nil, ids)
}

// ExchangeWhere gives every entity f passes the components add (zero
// values) and takes remove away, in one move per table, and returns how
// many entities f passed. Entity by entity it is [Inspection.AddID] for
// each of add, then [Inspection.RemoveID] for each of remove, both in
// ascending id order, so the journal lists each entity's additions before
// its removals. ChildOf is not changed this way ([World.SetParent] keeps
// the children index), and no component may be in both lists. Panics if a
// query is iterating or an id is not registered.
func (w *World) ExchangeWhere(f Filter, add, remove []ComponentID) (int, error) {
	w.checkUnlocked("ExchangeWhere")
	return w.exchangeWhere(&f, nil, add, remove, nil)
}

// smallMove is the most rows of a table a batch moves one by one.
const smallMove = 2

// rowsVisit sees a run of rows a batch operation left in table t, [first,
// first+n), and whether they moved there (else the entities already had
// the components added and none of those removed).
type rowsVisit func(t *table, first, n int, moved bool)

// exchangeWhere is ExchangeWhere once the caller has checked that no query
// iterates; cache is f's tables (tablesOf) when the caller has them, else
// nil; visit, if not nil, sees every entity's rows after its change, and
// one entity at a time for entities that take the single operations (its
// table and row then).
func (w *World) exchangeWhere(f *Filter, cache *queryCache, add, remove []ComponentID, visit rowsVisit) (int, error) {
	add, remove = sortedIDs(add), sortedIDs(remove)
	for _, id := range add {
		if slices.Contains(remove, id) {
			return 0, errBothWays
		}
	}
	sparseAdd, err := w.exchangedIDs(add)
	if err != nil {
		return 0, err
	}
	sparseRemove, err := w.exchangedIDs(remove)
	if err != nil {
		return 0, err
	}
	sparse := sparseAdd || sparseRemove
	var addMask, removeMask Mask // for exchanged, of more than one component
	if len(add)+len(remove) > 1 {
		addMask, removeMask = w.tableMask(add), w.tableMask(remove)
	}
	tables, lens, ents := w.batchTargets(f, cache)
	defer w.batch.done()
	tick := w.writeStamp()
	n := 0
	for ti, src := range tables {
		if sparse {
			// The single operations' journal interleaves sparse and table
			// components by id: entity by entity it is.
			n += lens[ti]
			for _, e := range slices.Clone(src.entities[:lens[ti]]) {
				w.exchangeOne(e, add, remove, visit)
			}
			continue
		}
		dst := w.exchanged(src, add, remove, &addMask, &removeMask)
		if dst == src {
			// Rows an earlier table moved here came after the table's own,
			// and were changed already.
			n += lens[ti]
			if visit != nil {
				visit(src, 0, lens[ti], false)
			}
			continue
		}
		rows := src.len()
		n += rows
		first := dst.len()
		if rows <= smallMove {
			// A few rows: the single moves, in row order, cost less than
			// a table's worth of column calls (and are what they stand for).
			var ents [smallMove]Entity
			for _, e := range ents[:copy(ents[:], src.entities)] {
				w.moveTo(e, &w.records[e.index], dst.id)
			}
		} else {
			dst.appendTable(src, tick)
			moved := dst.entities[first:]
			for i, e := range moved {
				rec := &w.records[e.index]
				rec.table, rec.row = dst.id, uint32(first+i)
			}
			if w.journal.on() {
				for _, e := range moved {
					w.logMove(e, src, dst)
				}
			}
		}
		if visit != nil {
			visit(dst, first, rows, true)
		}
	}
	for _, e := range ents {
		if w.exchangeOne(e, add, remove, visit) {
			n++
		}
	}
	return n, nil
}

// exchanged is the table of src's components with the table components
// add added and remove removed (their masks given too): one cached edge
// for a single component, a lookup by mask for more.
func (w *World) exchanged(src *table, add, remove []ComponentID, addMask, removeMask *Mask) *table {
	switch {
	case len(add) == 1 && len(remove) == 0:
		return w.tables[w.tableWith(src.id, add[0])]
	case len(add) == 0 && len(remove) == 1:
		return w.tables[w.tableWithout(src.id, remove[0])]
	}
	m := src.mask
	for i := range m {
		m[i] = (m[i] | addMask[i]) &^ removeMask[i]
	}
	if m == src.mask {
		return src
	}
	return w.tables[w.tableAimed(m, src, noAim, Entity{})]
}

// exchangedIDs checks the ids of an exchange and reports whether any is
// sparse.
func (w *World) exchangedIDs(ids []ComponentID) (sparse bool, err error) {
	for _, id := range ids {
		if ri := w.relation(id); ri != nil {
			return false, errRelationDirect(ri.short)
		}
		w.mustBeRegistered(id)
		sparse = sparse || w.sparse[id] != nil
	}
	return sparse, nil
}

// tableMask is the mask of the table-stored components among ids.
func (w *World) tableMask(ids []ComponentID) (m Mask) {
	for _, id := range ids {
		if w.sparse[id] == nil {
			m.Set(id)
		}
	}
	return m
}

// exchangeOne is an exchange's single operations for one entity; it
// reports whether e was alive.
func (w *World) exchangeOne(e Entity, add, remove []ComponentID, visit rowsVisit) bool {
	ins := w.Inspect()
	for _, id := range add {
		if ins.AddID(e, id) != nil {
			return false
		}
	}
	for _, id := range remove {
		if ins.RemoveID(e, id) != nil {
			return false
		}
	}
	if visit != nil {
		rec := &w.records[e.index]
		visit(w.tables[rec.table], int(rec.row), 1, true)
	}
	return true
}

// batchScratch keeps the lists batchTargets hands out, for the next
// batch operation (they never nest: structural changes are locked out
// while a batch's callbacks run).
type batchScratch struct {
	tables []*table
	lens   []int
	recent [4]recentFilter // the last filters of table tests alone
	next   int
}

// recentFilter is a filter of With and Without alone, and its tables.
type recentFilter struct {
	with, without []ComponentID // copies
	cache         *queryCache   // (caches live as long as the world)
}

// tablesOf is the cache of f's tables when f tests tables alone, nil when
// it tests entities one by one (sparse components, change stamps, a
// parent, Match): batches repeated over a few filters find theirs by their
// ids, with no masks built. It panics on an id that is not registered.
func (b *batchScratch) tablesOf(w *World, f *Filter) *queryCache {
	if len(f.Changed)+len(f.Added) > 0 || !f.Parent.IsZero() || !f.Related.Target.IsZero() || f.Match != nil {
		return nil
	}
	for i := range b.recent {
		if r := &b.recent[i]; r.cache != nil && slices.Equal(r.with, f.With) && slices.Equal(r.without, f.Without) {
			return r.cache
		}
	}
	for _, ids := range [][]ComponentID{f.With, f.Without} {
		for _, id := range ids {
			if w.mustBeRegistered(id); w.sparse[id] != nil {
				return nil
			}
		}
	}
	st := w.structureOf(f)
	c := w.cacheFor(st.key)
	b.recent[b.next] = recentFilter{with: slices.Clone(f.With), without: slices.Clone(f.Without), cache: c}
	b.next = (b.next + 1) % len(b.recent)
	return c
}

// done drops the tables listed, keeping the room.
func (b *batchScratch) done() {
	clear(b.tables)
	b.tables, b.lens = b.tables[:0], b.lens[:0]
}

// batchTargets is what f passes: whole tables when f tests no row, in
// table order, with their rows now (rows a batch moves into a table later
// are not among them, nor are tables it creates), else the entities one by
// one, in [Inspection.Scan]'s order. c is f's tables (tablesOf) when the
// caller has them, else nil. The tables are w.batch's: the caller calls
// w.batch.done when finished with them.
func (w *World) batchTargets(f *Filter, c *queryCache) (tables []*table, lens []int, ents []Entity) {
	b := &w.batch
	if c == nil {
		c = b.tablesOf(w, f)
	}
	if c == nil {
		ents, _ = w.Inspect().Scan(*f, 0, -1)
		return nil, nil, ents
	}
	for _, t := range c.tables {
		if t.len() > 0 {
			b.tables, b.lens = append(b.tables, t), append(b.lens, t.len())
		}
	}
	return b.tables, b.lens, nil
}

// tableEntities lists the entities of tables, in order.
func (w *World) tableEntities(tables []*table) []Entity {
	var out []Entity
	for _, t := range tables {
		out = append(out, t.entities...)
	}
	return out
}

// tableInHierarchy reports whether an entity of t holds a relation or is
// a target of one: its despawn must keep the relations' indexes.
func (w *World) tableInHierarchy(t *table) bool {
	if t.mask.ContainsAny(&w.relMask) || w.sparseRelations {
		return true
	}
	if !w.anyTargets() {
		return false // no relation points anywhere: no entity to look at
	}
	for _, e := range t.entities {
		if w.records[e.index].flags&flagTarget != 0 {
			return true
		}
	}
	return false
}

// anyTargets reports whether some relation may point at an entity: a
// kind of relation has holders listed under a target.
func (w *World) anyTargets() bool {
	for _, ri := range w.relKinds {
		if len(ri.holders) > 0 {
			return true
		}
	}
	return false
}

// dropSparse takes e out of every sparse set that holds it.
func (w *World) dropSparse(e Entity) {
	rec := &w.records[e.index]
	for _, s := range w.sparse {
		if rec.nsparse == 0 {
			return
		}
		if s != nil && s.remove(e) {
			rec.nsparse--
		}
	}
}

// mustBeRegistered panics with a clear message if id names no registered
// component.
func (w *World) mustBeRegistered(id ComponentID) {
	if int(id) >= len(w.reg.regs) {
		panic(fmt.Sprintf("ecs: component id %d is not registered", id))
	}
}

// sortedIDs is ids in ascending order without repeats: ids itself when
// they are, else a copy.
func sortedIDs(ids []ComponentID) []ComponentID {
	ascending := true
	for i := 1; i < len(ids) && ascending; i++ {
		ascending = ids[i-1] < ids[i]
	}
	if ascending {
		return ids
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}
