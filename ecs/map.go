package ecs

import (
	"reflect"
	"slices"
	"unsafe"
)

// Map gives typed access to one component type of a [World]: get, set, add
// and remove by entity handle. Create it once and keep it (the world keeps
// its per-table lookups current); it is cheap to hold many.
//
//	pos := ecs.NewMap[Position](w)
//	pos.Add(e, Position{X: 1})
//	if p := pos.Get(e); p != nil { p.X += 2 }
type Map[T any] struct {
	w      *World
	id     ComponentID
	sparse *sparseSet[T]
	cols   *colIndex[T] // T's column in each table (colindex.go)
	rel    bool         // T is a relation: Set keeps its target
}

// NewMap returns a [Map] for T, registering T on first use.
func NewMap[T any](w *World) *Map[T] {
	m := &Map[T]{w: w, id: ComponentIDOf[T](w)}
	m.rel = w.relation(m.id) != nil
	m.cols = indexOf[T](w, m.id)
	if s, ok := w.sparse[m.id].(*sparseSet[T]); ok {
		m.sparse = s
	}
	return m
}

// ID is the component id of T.
func (m *Map[T]) ID() ComponentID { return m.id }

// locate returns the column and row holding e's T, or nil.
func (m *Map[T]) locate(e Entity) (*typedColumn[T], int) {
	rec, ok := m.w.record(e)
	if !ok {
		return nil, 0
	}
	return m.cols.of(rec.table), int(rec.row)
}

// Get returns a pointer to e's T for reading and writing, and marks it
// changed; nil if e is not alive or lacks T. The pointer is valid until the
// next structural change of the world.
func (m *Map[T]) Get(e Entity) *T {
	if debugChecks {
		return m.getChecked(e)
	}
	// The fast path, one function with no calls: a live entity in a table
	// this Map has seen. Dead slots (table = deadTable) fall through.
	recs := m.w.records
	if uint(e.index) < uint(len(recs)) {
		rec := &recs[e.index]
		if cols := m.cols.cols; rec.gen == e.gen && uint(rec.table) < uint(len(cols)) {
			if col := cols[rec.table]; col != nil && !col.t.log.on {
				// markWrite without bounds checks: a live row is below the
				// column's length, and max is sized for its capacity. A
				// column keeping a change log takes the slow path; one
				// keeping no stamps is only read.
				row := int(rec.row)
				if col.t.on {
					tick := m.w.changeStamp.Load() + 1
					tickAt(col.t.header(), row).changed = tick
					*u32At(col.t.max, row>>groupShift) = tick
				}
				return valueAt(col.data, row)
			}
		}
	}
	return m.getSlow(e)
}

func (m *Map[T]) getSlow(e Entity) *T {
	if m.sparse != nil {
		p, ok := m.sparse.pos(e)
		if !ok {
			m.w.noteIfDead(e)
			return nil
		}
		m.sparse.changed[p] = m.w.writeStamp()
		return &m.sparse.dense[p]
	}
	col, row := m.locate(e)
	if col == nil {
		m.w.noteIfDead(e)
		return nil
	}
	col.t.markWrite(row, m.w.writeStamp())
	return &col.data[row]
}

// Read returns a pointer to e's T for reading only: writes through it are not
// seen by Changed filters. Nil if e is not alive or lacks T.
func (m *Map[T]) Read(e Entity) *T {
	if p := readFast(m.w.records, m.cols.cols, e); p != nil {
		return p
	}
	return m.readSlow(e)
}

// At returns a pointer to e's T for reading only, as [Map.Read] does, for
// a handle known to be alive and holding T: it panics otherwise (and for a
// sparse component, which Read serves). Read and Get make a call per
// lookup, to note stale handles and for their slow paths; At has none and
// compiles into the caller's loop, so a loop of lookups by handle keeps
// more of them in flight: over a million entities in random order, 0.84-
// 0.96x ark's Get against Read's 1.54x (bench/ark BenchmarkVsArk). Writes
// through the pointer are not seen by Changed filters: write through Get.
func (m *Map[T]) At(e Entity) *T {
	if debugChecks {
		return m.atChecked(e)
	}
	// readFast's test written out, without its bounds check on the slot
	// (the index panics): through readFast, At costs 95 and no longer
	// inlines; a helper for the test shared with readFast took readFast
	// to 86, which would put a call per entity in ReadAll's loop.
	rec := &m.w.records[e.index]
	cols := m.cols.cols
	if rec.gen != e.gen || uint(rec.table) >= uint(len(cols)) || cols[rec.table] == nil {
		panic(atFailed)
	}
	return valueAt(cols[rec.table].data, int(rec.row))
}

// atFailed is what At panics with.
const atFailed = "ecs: Map.At of a handle that is not alive, or whose entity lacks the component (or it is sparse: use Read)"

// readFast is Read's fast path, with no call: e's T when e is a live
// entity in a table with T (cols), else nil (dead slots have table =
// deadTable, past cols).
func readFast[T any](recs []entityRecord, cols []*typedColumn[T], e Entity) *T {
	if uint(e.index) < uint(len(recs)) {
		rec := &recs[e.index]
		if rec.gen == e.gen && uint(rec.table) < uint(len(cols)) {
			if col := cols[rec.table]; col != nil {
				return valueAt(col.data, int(rec.row))
			}
		}
	}
	return nil
}

func (m *Map[T]) readSlow(e Entity) *T {
	if m.sparse != nil {
		v := m.sparse.get(e)
		if v == nil {
			m.w.noteIfDead(e)
		}
		return v
	}
	col, row := m.locate(e)
	if col == nil {
		m.w.noteIfDead(e)
		return nil
	}
	return &col.data[row]
}

// Has reports whether e is alive and has T.
func (m *Map[T]) Has(e Entity) bool {
	if m.sparse != nil {
		return m.sparse.has(e)
	}
	col, _ := m.locate(e)
	return col != nil
}

// Set overwrites e's T with v and marks it changed. It returns an error if e
// is not alive or lacks T.
func (m *Map[T]) Set(e Entity, v T) error {
	p := m.Get(e)
	if p == nil {
		if !m.w.Alive(e) {
			return m.w.deadError(e) // Get noted the use
		}
		return &ComponentError{Entity: e, Component: m.w.reg.regs[m.id].info.Short}
	}
	if m.rel {
		off, _ := relationOffset(reflect.TypeFor[T]())
		r := (*Relation)(unsafe.Add(unsafe.Pointer(p), off))
		t := r.target
		*p = v
		r.target = t // a relation's target is kept: Rel.SetTarget changes it
		return nil
	}
	*p = v
	return nil
}

// Add gives e the component T with value v; if e has T already, v overwrites
// it. Table-stored T moves e's row to another table; sparse T moves nothing.
// It returns an [*EntityError] if e is not alive. Panics if a query is
// iterating.
func (m *Map[T]) Add(e Entity, v T) error {
	w := m.w
	rec, err := w.changing("Add", e)
	if err != nil {
		return err
	}
	if ri := m.w.relation(m.id); ri != nil {
		return errRelationDirect(ri.short)
	}
	if m.sparse != nil {
		m.putSparse(e, rec, v)
		return nil
	}
	from := rec.table
	w.moveTo(e, rec, w.tableWith(from, m.id))
	col := m.cols.of(rec.table)
	col.data[rec.row] = v
	if rec.table == from { // overwritten in place; a moved row came with this tick
		col.t.markWrite(int(rec.row), w.writeStamp())
	}
	return nil
}

// Remove takes T away from e; it does nothing if e lacks T. It returns an
// [*EntityError] if e is not alive. Panics if a query is iterating.
func (m *Map[T]) Remove(e Entity) error {
	return m.w.Inspect().RemoveID(e, m.id)
}

// put stores v as ent's T in the row just pushed into t (or in the sparse set).
func (m *Map[T]) put(t *table, row int, ent Entity, v T, tick uint32, rec *entityRecord) {
	if m.sparse != nil {
		m.sparse.add(ent, v, tick)
		rec.nsparse++
		m.w.logStructural(OpAdd, ent, int(m.id))
		return
	}
	m.cols.of(t.id).data[row] = v
}

// batch gives T to entities just pushed into t from row first on and returns
// their values, in the order of ents: a slice of t's column, or the tail of
// the sparse set's values, where each new entity was just appended.
func (m *Map[T]) batch(t *table, first int, ents []Entity, tick uint32) []T {
	if s := m.sparse; s != nil {
		for _, ent := range ents {
			if !s.addZero(ent, tick) {
				panic("ecs: internal error: a new entity was already in the sparse set of " + m.w.reg.regs[m.id].info.Name)
			}
			m.w.records[ent.index].nsparse++
			m.w.logStructural(OpAdd, ent, int(m.id))
		}
		return s.dense[len(s.dense)-len(ents):]
	}
	return m.cols.of(t.id).data[first : first+len(ents)]
}

// spawnBlock is how many entities SpawnBatch sets up at a time.
const spawnBlock = 256

// Len counts the entities that have T.
func (m *Map[T]) Len() int {
	if m.sparse != nil {
		return m.sparse.length()
	}
	n := 0
	for _, t := range m.w.tables {
		if t.mask.Has(m.id) {
			n += t.len()
		}
	}
	return n
}

// Spawn creates an entity with T alone, set to v. Panics if a query is
// iterating. For many at once, [Map.SpawnBatch] grows the storage once.
func (m *Map[T]) Spawn(v T) Entity {
	w := m.w
	w.checkUnlocked("Spawn")
	ent, row, rec, tick := w.spawnRow(m.spawnTable())
	t := w.tables[rec.table]
	m.put(t, row, ent, v, tick, rec)
	return ent
}

// SpawnBatch creates n entities with T alone, growing the storage once;
// init, if not nil, sets up each one's value (they start zero): i counts
// the entities of the batch before ent. Panics if a query is iterating,
// and if init spawns, despawns, adds or removes (queue that in
// [Commands]). [World.Reserve] makes room ahead of a spawn loop instead.
func (m *Map[T]) SpawnBatch(n int, init func(i int, ent Entity, v *T)) {
	t := m.spawnTable()
	m.w.spawnBlocks(t, n, init != nil, func(done, first int, ents []Entity, tick uint32) {
		vs := m.batch(t, first, ents, tick)
		if init != nil {
			for i, ent := range ents {
				init(done+i, ent, &vs[i])
			}
		}
	})
}

// spawnTable is the table of entities with T alone (with nothing, when T
// is sparse: the entity is in the sparse set).
func (m *Map[T]) spawnTable() *table {
	var mask Mask
	if m.sparse == nil {
		mask.Set(m.id)
	}
	return m.w.tables[m.w.tableFor(mask)]
}

// ReadAll appends to out, for each of ents in order, a pointer to its T for
// reading only, or nil (as [Map.Read]), and returns out. One loop with no
// call per entity: the loads of many entities overlap, which a loop of
// Read calls does not allow as well (random access over a million
// entities is a cache miss or two each).
func (m *Map[T]) ReadAll(ents []Entity, out []*T) []*T {
	recs, cols := m.w.records, m.cols.cols
	base := len(out)
	out = slices.Grow(out, len(ents))[:base+len(ents)]
	dst := out[base:]
	for i, e := range ents {
		p := readFast(recs, cols, e)
		if p == nil {
			p = m.readSlow(e)
		}
		dst[i] = p
	}
	return out
}

// putSparse gives e (rec its record) the sparse value v: added, or
// written over the one it has.
func (m *Map[T]) putSparse(e Entity, rec *entityRecord, v T) {
	w := m.w
	if m.sparse.add(e, v, w.writeStamp()) {
		rec.nsparse++
		w.logStructural(OpAdd, e, int(m.id))
	} else {
		*m.Get(e) = v
	}
}
