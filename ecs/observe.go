package ecs

import (
	"reflect"
	"sort"
	"unsafe"
)

// The observation API: what the inspector reads of a world. None of it is
// for hot paths; each call allocates its answer.

// ArchetypeInfo describes one archetype table.
type ArchetypeInfo struct {
	ID         uint32
	Components []ComponentID // table components, ascending
	Len        int           // entities (rows)
	Cap        int           // rows allocated
	Bytes      int           // memory the rows use: values, handles, ticks
	CapBytes   int           // memory allocated for rows
	// Targets are where the table's holders of each relation kind point,
	// in a table of one target's holders (a relation other than ChildOf
	// keeps a table per target and archetype); nil in others.
	Targets []RelTarget
}

// inspectArchetypes is [Inspection.Archetypes]: tables retired with their
// target are left out.
func (w *World) inspectArchetypes() []ArchetypeInfo {
	out := make([]ArchetypeInfo, 0, len(w.tables))
	for _, t := range w.tables {
		if t.retired {
			continue
		}
		used, capacity := t.bytes(&w.reg)
		ai := ArchetypeInfo{ID: t.id, Components: t.ids, Len: t.len(), Cap: cap(t.entities), Bytes: used, CapBytes: capacity}
		for i, k := range t.aims {
			ai.Targets = append(ai.Targets, RelTarget{Kind: k, Target: t.targets[i]})
		}
		out = append(out, ai)
	}
	return out
}

// inspectArchetypeEntities is [Inspection.ArchetypeEntities].
func (w *World) inspectArchetypeEntities(id uint32, offset, limit int) ([]Entity, int) {
	if int(id) >= len(w.tables) {
		return nil, 0
	}
	rows := w.tables[id].entities
	page := NewPager(offset, limit)
	return page.take(nil, rows), page.Total()
}

// inspectLocation is [Inspection.Location].
func (w *World) inspectLocation(e Entity) (archetype uint32, row int, ok bool) {
	rec, ok := w.record(e)
	if !ok {
		return 0, 0, false
	}
	return rec.table, int(rec.row), true
}

// EntityStats describes the entity slots of a world.
type EntityStats struct {
	Alive    int // live entities
	Free     int // slots free for reuse
	Retired  int // slots whose generation ran out, never reused
	Slots    int // slots ever used
	Highest  int // the highest slot index in use or free, -1 if none
	Reserved int // slots handed out by command buffers, not yet spawned
}

// inspectStats is [Inspection.Stats].
func (w *World) inspectStats() EntityStats {
	return EntityStats{
		Alive: w.alive, Free: len(w.free), Retired: w.retired, Slots: len(w.records),
		Highest: len(w.records) - 1, Reserved: w.reserve.pending,
	}
}

// SlotInfo describes one entity slot by how often it was reused.
type SlotInfo struct {
	Index      uint32
	Generation uint32 // the slot's current generation: reuses + 1
	Alive      bool
}

// inspectMostRecycled is [Inspection.MostRecycled].
func (w *World) inspectMostRecycled(k int) []SlotInfo {
	if k <= 0 {
		return nil
	}
	if k <= MaxRecycledKept {
		return w.recycled.list(w, k)
	}
	return w.scanRecycled(k)
}

// scanRecycled is MostRecycled by a pass over every slot.
func (w *World) scanRecycled(k int) []SlotInfo {
	var out []SlotInfo
	for i := range w.records {
		r := &w.records[i]
		if r.gen < 2 || (len(out) == k && r.gen <= out[k-1].Generation) { // never reused, or not among the k most
			continue
		}
		s := SlotInfo{Index: uint32(i), Generation: r.gen, Alive: r.table != deadTable}
		at := sort.Search(len(out), func(j int) bool { return out[j].Generation < s.Generation })
		out = append(out, SlotInfo{})
		copy(out[at+1:], out[at:])
		out[at] = s
		if len(out) > k {
			out = out[:k]
		}
	}
	return out
}

// inspectValue is [Inspection.Value].
func (w *World) inspectValue(e Entity, id ComponentID) (reflect.Value, bool) {
	rec, ok := w.record(e)
	if !ok || int(id) >= len(w.sparse) {
		return reflect.Value{}, false
	}
	if s := w.sparse[id]; s != nil {
		return s.value(e)
	}
	t := w.tables[rec.table]
	j := t.column(id)
	if j < 0 {
		return reflect.Value{}, false
	}
	return t.cols[j].value(int(rec.row)), true
}

// inspectBytes is [Inspection.Bytes].
func (w *World) inspectBytes(e Entity, id ComponentID) ([]byte, bool) {
	v, ok := w.Inspect().Value(e, id)
	if !ok {
		return nil, false
	}
	size := v.Type().Size()
	if size == 0 {
		return []byte{}, true
	}
	return append([]byte(nil), unsafe.Slice((*byte)(v.Addr().UnsafePointer()), size)...), true
}

// markChanged records a write of e's component id outside query runs.
func (w *World) markChanged(e Entity, id ComponentID) {
	rec, ok := w.record(e)
	if !ok {
		return
	}
	if s := w.sparse[id]; s != nil {
		s.markChanged(e, w.writeStamp())
		return
	}
	t := w.tables[rec.table]
	if j := t.column(id); j >= 0 {
		t.ticks[j].markWrite(int(rec.row), w.writeStamp())
	}
}

// inspectEachChanged is [Inspection.EachChanged].
func (w *World) inspectEachChanged(id ComponentID, since, until uint32, fn func(e Entity, raw []byte) bool) (ok bool) {
	if int(id) >= len(w.reg.regs) || w.reg.regs[id].info.Type == nil || hasPointers(w.reg.regs[id].info.Type) {
		return false
	}
	if s := w.sparse[id]; s != nil {
		s.eachChanged(since, until, fn)
		return true
	}
	w.eachChangedRow(id, since, until, nil, fn)
	return true
}

// eachChangedRow is EachChanged over the table rows, with the rows whose
// memory fails pass (when not nil) left out before their ticks are read.
func (w *World) eachChangedRow(id ComponentID, since, until uint32, pass func(unsafe.Pointer) bool, fn func(e Entity, raw []byte) bool) {
	w.trackChanges(id)
	size := int(w.reg.regs[id].info.Size)
	for _, t := range w.tables {
		j := t.column(id)
		if j < 0 || t.len() == 0 {
			continue
		}
		c, ticks, n := &t.raw[j], t.ticks[j], t.len()
		for r := ticks.nextChanged(0, n, since); r < n; r = ticks.nextChanged(r+1, n, since) {
			p := c.at(r)
			if pass != nil && !pass(p) || until != 0 && newer(ticks.effective(r), until) {
				continue
			}
			var raw []byte
			if size > 0 {
				raw = unsafe.Slice((*byte)(p), size)
			}
			if !fn(t.entities[r], raw) {
				return
			}
		}
	}
}
