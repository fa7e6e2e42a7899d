package ecs

import (
	"fmt"
	"reflect"
)

// Term refines a query: which other components entities must have or lack,
// which of the query's components may be missing or are written, and which
// must have changed or been added since the query last ran.
type Term struct {
	kind termKind
	typ  reflect.Type
	id   func(*World) ComponentID
}

type termKind uint8

const (
	termWith termKind = iota
	termWithout
	termOptional
	termChanged
	termAdded
	termWrite
)

var termNames = [...]string{"With", "Without", "Optional", "Changed", "Added", "Mut"}

func termOf[T any](k termKind) Term {
	return Term{kind: k, typ: reflect.TypeFor[T](), id: ComponentIDOf[T]}
}

// With requires entities to have T, without reading it.
func With[T any]() Term { return termOf[T](termWith) }

// Without excludes entities that have T.
func Without[T any]() Term { return termOf[T](termWithout) }

// Optional lets entities lacking T (one of the query's components) match;
// Get yields nil for T on them.
func Optional[T any]() Term { return termOf[T](termOptional) }

// Changed passes only entities whose T was written (through a writable query,
// [Map.Get], [Map.Set] or [Map.Add]) or added since this query last ran.
// A write made while the query runs is seen by its next run, and may also be
// seen by this one if the run has not passed the entity yet.
func Changed[T any]() Term { return termOf[T](termChanged) }

// Added passes only entities that got T since this query last ran.
func Added[T any]() Term { return termOf[T](termAdded) }

// Mut declares that the query changes T, one of its components, so the rows
// it yields are marked changed for T. Components not declared so are
// read-only: writes through their pointers go unseen by Changed filters.
// (A system's access to the world, for the schedule, is [Writes].)
func Mut[T any]() Term { return termOf[T](termWrite) }

// maxStampFilters bounds Changed and Added terms per query.
const maxStampFilters = 8

// filterKey identifies the tables a query visits; queries with equal keys
// share one cache.
type filterKey struct{ all, none Mask }

// queryCache lists the tables matching a filterKey, kept up to date as tables
// are created.
type queryCache struct {
	key    filterKey
	tables []*table
}

func (c *queryCache) consider(t *table) {
	if t.mask.ContainsAll(&c.key.all) && !t.mask.ContainsAny(&c.key.none) {
		c.tables = append(c.tables, t)
	}
}

func (w *World) cacheFor(key filterKey) *queryCache {
	if c, ok := w.cacheByKey[key]; ok {
		return c
	}
	c := &queryCache{key: key}
	for _, t := range w.tables {
		c.consider(t)
	}
	w.cacheByKey[key] = c
	w.caches = append(w.caches, c)
	return c
}

// queryState is the untyped part of a query definition.
type queryState struct {
	w           *World
	cache       *queryCache
	ids         []ComponentID // the query's components, in order
	optional    []bool        // parallel to ids
	writeIDs    []ComponentID // writable table components
	writeSp     []sparseStore // writable sparse components
	st          structure     // what an entity must hold (its key picks the tables)
	filtered    bool          // rows are filtered one by one
	anyOptional bool
	onlyChanged bool // the only row filter is one Changed on a table component
	readsSparse bool // some component of the query lives in a sparse set
	lastRun     uint32
	logSeen     uint32    // the tick of the last finished run: change logs' entries up to it were read
	dirty       dirtyBits // with onlyChanged, a run's set of logged rows (see iterCore.takeDirty)
	dirtyBusy   bool
	scan        *changedScan // kept between runs with a Changed filter (iter.go)
}

func newQueryState(w *World, ids []ComponentID, terms []Term) *queryState {
	q := &queryState{w: w, ids: ids, optional: make([]bool, len(ids))}
	position := func(t Term) int {
		id := t.id(w)
		for i, qid := range ids {
			if qid == id {
				return i
			}
		}
		panic(fmt.Sprintf("ecs: %s[%s] names a component the query does not list", termNames[t.kind], typeName(t.typ)))
	}
	writable := make([]bool, len(ids))
	st := &q.st
	var withs []ComponentID
	var stamps []Term
	for _, t := range terms {
		switch t.kind {
		case termOptional:
			q.optional[position(t)] = true
			q.anyOptional = true
		case termWrite:
			writable[position(t)] = true
		case termWith:
			withs = append(withs, t.id(w))
		case termChanged, termAdded:
			if len(stamps) == maxStampFilters {
				panic(fmt.Sprintf("ecs: a query takes at most %d Changed and Added terms", maxStampFilters))
			}
			stamps = append(stamps, t)
		case termWithout:
			st.exclude(w, t.id(w))
		}
	}
	for i, id := range ids {
		if !q.optional[i] {
			st.require(w, id)
		}
		if s := w.sparse[id]; s != nil {
			q.filtered = true
			if writable[i] {
				q.writeSp = append(q.writeSp, s)
			}
		} else if writable[i] {
			q.writeIDs = append(q.writeIDs, id)
		}
	}
	for _, id := range withs {
		st.require(w, id)
	}
	for _, t := range stamps {
		st.stamp(w, t.id(w), t.kind == termAdded)
	}
	if st.key.all.ContainsAny(&st.key.none) {
		panic("ecs: a query both requires and excludes the same component")
	}
	q.onlyChanged = !q.filtered && len(st.sparseAll)+len(st.sparseNone) == 0 && len(st.stamps) == 1 &&
		!st.stamps[0].added && st.stamps[0].sparse == nil
	q.filtered = q.filtered || st.rowTests()
	for _, id := range ids {
		q.readsSparse = q.readsSparse || w.sparse[id] != nil
	}
	q.cache = w.cacheFor(st.key)
	if q.onlyChanged {
		w.logChanges(st.stamps[0].id, q)
	}
	return q
}

// takeScan hands a run the query's changedScan, or a new one if another
// run of the query holds it.
func (q *queryState) takeScan() *changedScan {
	s := q.scan
	if s == nil {
		return &changedScan{}
	}
	q.scan = nil
	return s
}

// count returns how many entities the query matches now, without running it.
func (q *queryState) count() int {
	if !q.filtered {
		n := 0
		for _, t := range q.cache.tables {
			n += t.len()
		}
		return n
	}
	c := iterCore{counting: true}
	c.begin(q, false)
	n := 0
	for {
		if !c.advance() {
			break
		}
		n++
		c.row++
	}
	c.releaseDirty()
	c.returnScan()
	return n
}

// Filter selects entities by component ids, for [Inspection.Scan].
type Filter struct {
	With    []ComponentID // must have all
	Without []ComponentID // must have none
	Changed []ComponentID // written after Since
	Added   []ComponentID // added after Since
	Since   uint32
	Parent  Entity            // if not zero: must be a child of Parent
	Match   func(Entity) bool // if not nil: a last test, per entity
	// Related, if its Target is not zero: must hold the relation Kind
	// pointing at Target. The entities are found through the relation's
	// index, not by scanning the tables.
	Related RelTarget
}

// RelTarget names a relation kind and a target: the entities that point
// at Target through Kind.
type RelTarget struct {
	Kind   ComponentID
	Target Entity
}
