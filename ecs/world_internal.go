package ecs

import "math"

// maxGeneration is the last generation a slot can hold; a slot despawned at it
// is retired instead of wrapping to generations handed out before.
const maxGeneration = math.MaxUint32

// record returns the record of a live entity.
func (w *World) record(e Entity) (*entityRecord, bool) {
	if int(e.index) >= len(w.records) {
		return nil, false
	}
	rec := &w.records[e.index]
	if rec.gen != e.gen || rec.table == deadTable {
		return nil, false
	}
	return rec, true
}

// changing is the record of e for the structural change op: it panics
// where a structural change may not run (checkUnlocked) and says why a
// handle names no live entity.
func (w *World) changing(op string, e Entity) (*entityRecord, error) {
	w.checkUnlocked(op)
	rec, ok := w.record(e)
	if !ok {
		return nil, w.entityError(e)
	}
	return rec, nil
}

// writeStamp is the tick stamped on writes made outside query runs: the tick
// the next run will get, so that every query that has not run since sees it.
func (w *World) writeStamp() uint32 { return w.changeStamp.Load() + 1 }

func (w *World) checkUnlocked(op string) {
	if w.locks.Load() != 0 {
		if w.batchInits.Load() != 0 {
			panic(batchInitPanic(op))
		}
		panic(lockedPanic(op))
	}
	if w.inSystems.Load() != 0 {
		panic(inSystemPanic(op))
	}
}

// lockForInit keeps structural changes out while a batch spawn's init runs:
// they would move the rows init is setting up. unlockForInit ends it.
func (w *World) lockForInit() {
	w.locks.Add(1)
	w.batchInits.Add(1)
}

func (w *World) unlockForInit() {
	w.batchInits.Add(-1)
	w.locks.Add(-1)
}

func (w *World) allocEntity() Entity {
	if w.reserve.pending > 0 {
		w.recordPending()
	}
	w.alive++
	if n := len(w.free); n > 0 {
		idx := w.free[n-1]
		w.free = w.free[:n-1]
		w.freeLow = min(w.freeLow, n-1)
		return Entity{index: idx, gen: w.records[idx].gen}
	}
	idx := uint32(len(w.records))
	if len(w.records) == cap(w.records) { // grown as tables grow (grownCap), not by append's quarter
		w.growRecords(len(w.records) + 1)
	}
	w.records = append(w.records, entityRecord{gen: 1, table: deadTable})
	return Entity{index: idx, gen: 1}
}

// allocEntities hands out len(out) entities into out, recorded as rows
// first, first+1, ... of table t.
func (w *World) allocEntities(out []Entity, t uint32, first int) {
	if w.reserve.pending > 0 {
		w.recordPending()
	}
	n := len(out)
	w.alive += n
	take := min(n, len(w.free))
	free := w.free[len(w.free)-take:]
	recs := w.records
	for i := range take {
		idx := free[take-1-i]
		rec := &recs[idx]
		rec.table, rec.row = t, uint32(first+i)
		out[i] = Entity{index: idx, gen: rec.gen}
	}
	w.free = w.free[:len(w.free)-take]
	w.freeLow = min(w.freeLow, len(w.free))
	if rest := n - take; rest > 0 {
		base := len(w.records)
		if need := base + rest; need > cap(w.records) {
			w.growRecords(need)
		}
		w.records = w.records[:base+rest]
		fresh := w.records[base:]
		for j := range fresh {
			fresh[j] = entityRecord{gen: 1, table: t, row: uint32(first + take + j)}
			out[take+j] = Entity{index: uint32(base + j), gen: 1}
		}
	}
	if w.journal.on() {
		for _, e := range out {
			w.logStructural(OpSpawn, e, NoComponent)
		}
	}
}

// growRecords makes room for need records, with room to grow.
func (w *World) growRecords(need int) { w.recordRoom(grownCap(need, cap(w.records))) }

// reserveRecords makes room for n entities more than the free list has
// slots for, exactly and at once: a batch of n, or Reserve.
func (w *World) reserveRecords(n int) {
	if need := len(w.records) + n - len(w.free); need > cap(w.records) {
		w.recordRoom(need)
	}
}

func (w *World) recordRoom(c int) {
	w.records = withRoom(w.records, c)
}

func (w *World) freeEntity(e Entity) {
	w.alive--
	rec := &w.records[e.index]
	w.noteDeath(e.index, rec)
	w.release(e.index, rec)
}

// release frees slot, whose record is rec, for reuse under the next
// generation, or retires it at the last one.
func (w *World) release(slot uint32, rec *entityRecord) {
	rec.kill()
	if w.nextGeneration(slot, rec) {
		w.pushFree(slot)
	}
}

// kill marks a record dead: no table, no sparse components, no flags.
func (rec *entityRecord) kill() { rec.table, rec.nsparse, rec.flags = deadTable, 0, 0 }

// nextGeneration moves a dead record's slot to its next generation and
// reports whether the slot goes back on the free list (else it retired at
// the last generation). It inlines, for a batch despawn's loop.
func (w *World) nextGeneration(slot uint32, rec *entityRecord) bool {
	if rec.gen >= w.recycled.floor { // the floor is at most maxGeneration: the last generation comes here too
		return w.nextGenerationRarely(slot, rec)
	}
	rec.gen++
	return true
}

// nextGenerationRarely is nextGeneration for a slot at its last
// generation, or whose next one the most-recycled list takes.
func (w *World) nextGenerationRarely(slot uint32, rec *entityRecord) bool {
	if rec.gen == maxGeneration {
		w.retired++
		return false
	}
	rec.gen++
	w.recycled.note(slot, rec.gen)
	return true
}

// pushFree puts a slot on top of the free list.
func (w *World) pushFree(slot uint32) {
	w.free = append(w.free, slot)
}

// removeRow deletes a row and patches the record of the entity moved into it.
func (w *World) removeRow(t *table, row int) {
	if moved := t.swapRemove(row); !moved.IsZero() {
		w.records[moved.index].row = uint32(row)
	}
}

// moveTo moves e's row to table dst, keeping shared component values.
func (w *World) moveTo(e Entity, rec *entityRecord, dst uint32) {
	if dst == rec.table {
		return
	}
	row := rec.row
	if w.journal.on() {
		w.logMove(e, w.tables[rec.table], w.tables[dst])
	}
	newRow, moved := w.tables[dst].moveRowFrom(w.tables[rec.table], int(row), w.writeStamp())
	if !moved.IsZero() {
		w.records[moved.index].row = row
	}
	rec.table, rec.row = dst, uint32(newRow)
}

// spawnRow takes a new entity into a new row of t, its values zero, as
// every spawn does: the handle, the row, the record, the journal's entry.
// It returns the entity, its row and record, and the stamp its values
// carry.
func (w *World) spawnRow(t *table) (Entity, int, *entityRecord, uint32) {
	e := w.allocEntity()
	tick := w.writeStamp()
	row := t.pushZero(e, tick)
	rec := &w.records[e.index]
	rec.table, rec.row = t.id, uint32(row)
	w.logStructural(OpSpawn, e, NoComponent)
	return e, row, rec, tick
}

// tableWith returns the table for the components of table t plus id.
func (w *World) tableWith(t uint32, id ComponentID) uint32 { return w.tableEdge(t, id, true) }

// tableWithout returns the table for the components of table t less id.
func (w *World) tableWithout(t uint32, id ComponentID) uint32 { return w.tableEdge(t, id, false) }

// tableEdge returns the table for the components of table t plus id (add)
// or less id, through the edge table t keeps for it, made on first use.
func (w *World) tableEdge(t uint32, id ComponentID, add bool) uint32 {
	tb := w.tables[t]
	if tb.mask.Has(id) == add {
		return t
	}
	edges := func(tb *table) *[]uint32 {
		if add {
			return &tb.add
		}
		return &tb.remove
	}
	if e := *edges(tb); int(id) < len(e) {
		if to := e[id]; to != 0 {
			return to - 1
		}
	}
	m := tb.mask
	if add {
		m.Set(id)
	} else {
		m.Clear(id)
	}
	to := w.tableAimed(m, tb, noAim, Entity{})
	e := edges(w.tables[t]) // tableAimed may have grown the tables
	if *e == nil {
		*e = make([]uint32, MaxComponents)
	}
	(*e)[id] = to + 1
	return to
}

// tableFor returns the table for exactly the components of m, creating it
// (and telling every query cache) if needed; aimed relations among them
// point at no target there (aimed.go).
func (w *World) tableFor(m Mask) uint32 {
	if id, ok := w.byMask[m]; ok {
		return id
	}
	id := w.newTableFor(m)
	w.byMask[m] = id
	return id
}

// newTableFor makes a table for the components of m, telling every query
// cache.
func (w *World) newTableFor(m Mask) uint32 {
	id := uint32(len(w.tables))
	t := newTable(id, m, &w.reg, &w.stamps)
	if w.capacity > 0 {
		t.reserve(w.capacity)
	}
	w.tables = append(w.tables, t)
	w.indexTable(t)
	for i, cid := range t.ids {
		if r := w.changeReaders[cid]; r != nil {
			t.ticks[i].enableLog(0, r) // empty: every row to come is logged
			t.logs = true
		}
	}
	for _, c := range w.caches {
		c.consider(t)
	}
	return id
}

// logChanges makes every column of id keep a change log (changelog.go), for
// q, a Changed query on id.
func (w *World) logChanges(id ComponentID, q *queryState) {
	r := w.changeReaders[id]
	if r == nil {
		r = &changeReaders{}
		w.changeReaders[id] = r
		for _, t := range w.tables {
			if j := t.column(id); j >= 0 {
				t.ticks[j].enableLog(w.writeStamp(), r)
				t.logs = true
			}
		}
	}
	r.queries = append(r.queries, q)
}
