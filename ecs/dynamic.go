package ecs

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
)

// Dynamic access by component id, for tools that learn the components at
// run time (the inspector). Not for hot paths.

// inspectNextStamp is [Inspection.NextStamp].
// A tool keeping a stamp to compare later reads every component's stamps
// from then on.
func (w *World) inspectNextStamp() uint32 {
	w.trackAllChanges()
	return w.changeStamp.Add(1)
}

// inspectChangedSince is [Inspection.ChangedSince].
func (w *World) inspectChangedSince(e Entity, id ComponentID, since uint32) bool {
	w.trackChanges(id)
	rec, ok := w.record(e)
	if !ok || int(id) >= len(w.sparse) {
		return false
	}
	if s := w.sparse[id]; s != nil {
		return s.changedSince(e, since)
	}
	t := w.tables[rec.table]
	j := t.column(id)
	return j >= 0 && t.ticks[j].changedSince(int(rec.row), since)
}

// inspectAddedSince is [Inspection.AddedSince].
func (w *World) inspectAddedSince(e Entity, id ComponentID, since uint32) bool {
	w.trackChanges(id)
	rec, ok := w.record(e)
	if !ok || int(id) >= len(w.sparse) {
		return false
	}
	if s := w.sparse[id]; s != nil {
		return s.addedSince(e, since)
	}
	t := w.tables[rec.table]
	j := t.column(id)
	return j >= 0 && t.ticks[j].addedSince(int(rec.row), since)
}

// inspectScan is [Inspection.Scan].
func (w *World) inspectScan(f Filter, offset, limit int) (window []Entity, total int) {
	st := w.structureOf(&f)
	page := NewPager(offset, limit)
	if !st.rowTests() {
		for _, t := range w.tables {
			if t.len() > 0 && st.matches(t) {
				window = page.take(window, t.entities)
			}
		}
		return window, page.Total()
	}
	cols := make([]*colStamps, len(st.stamps))
	if hs, ok := st.holders(w); ok {
		// A relation's target: its holders, not the tables, put in the
		// world's order (table, then row) as every Scan's.
		type place struct{ table, row uint32 }
		var passed []place
		for _, e := range hs {
			rec := &w.records[e.index]
			t := w.tables[rec.table]
			if !st.matches(t) {
				continue
			}
			if st.rowPasses(w, st.stampColumns(t, cols), e, int(rec.row), f.Since) {
				passed = append(passed, place{rec.table, rec.row})
			}
		}
		slices.SortFunc(passed, func(a, b place) int { return cmp.Or(cmp.Compare(a.table, b.table), cmp.Compare(a.row, b.row)) })
		for _, p := range passed {
			window = page.take(window, w.tables[p.table].entities[p.row:p.row+1])
		}
		return window, page.Total()
	}
	for _, t := range w.tables {
		if t.len() == 0 || !st.matches(t) {
			continue
		}
		cols = st.stampColumns(t, cols)
		// The common case, one Changed on a table column and nothing else
		// per row: straight to the next changed row.
		var single *colStamps
		if len(cols) == 1 && cols[0] != nil && !st.stamps[0].added {
			single = cols[0]
		}
		n := t.len()
		for r := 0; r < n; r++ {
			if single != nil {
				if r = single.nextChanged(r, n, f.Since); r >= n {
					break
				}
			} else if r&(groupRows-1) == 0 && !st.groupMayPass(cols, r>>groupShift, f.Since) {
				r += groupRows - 1
				continue
			}
			if e := t.entities[r]; st.rowPasses(w, cols, e, r, f.Since) {
				window = page.take(window, t.entities[r:r+1])
			}
		}
	}
	return window, page.Total()
}

// inspectNewValue is [Inspection.NewValue].
func (w *World) inspectNewValue(id ComponentID, fields map[string]any) (reflect.Value, error) {
	if int(id) >= len(w.reg.regs) {
		return reflect.Value{}, fmt.Errorf("ecs: no component with id %d", id)
	}
	in := w.reg.regs[id].info
	v := reflect.New(in.Type).Elem()
	if err := w.fillValue(v, in.Short, fields, false); err != nil {
		return reflect.Value{}, err
	}
	return v, nil
}

// fillValue sets v from x (a map of fields, a list, a plain value) as
// [Inspection.SetField] would; nonFinite is the enclosing field's opt-in to NaN
// and ±Inf.
func (w *World) fillValue(v reflect.Value, path string, x any, nonFinite bool) error {
	return w.converter().fill(v, path, x, nonFinite)
}

// inspectAddValue is [Inspection.AddValue].
func (w *World) inspectAddValue(e Entity, id ComponentID, v reflect.Value) error {
	if ri := w.relation(id); ri != nil {
		return errRelationDirect(ri.short)
	}
	if v.Type() != w.reg.regs[id].info.Type {
		return fmt.Errorf("ecs: %s is not a %s", v.Type(), w.reg.regs[id].info.Short)
	}
	return w.addValue(e, id, v)
}

// addValue gives e component id with the value v (of its type), relations
// too, their targets as v holds them and not linked (a restore links them
// once every entity is back).
func (w *World) addValue(e Entity, id ComponentID, v reflect.Value) error {
	rec, err := w.changing("Add", e)
	if err != nil {
		return err
	}
	if s := w.sparse[id]; s != nil {
		if s.addZero(e, w.writeStamp()) {
			rec.nsparse++
			w.logStructural(OpAdd, e, int(id))
		}
	} else {
		w.moveTo(e, rec, w.tableWith(rec.table, id))
	}
	dst, _ := w.Inspect().Value(e, id)
	dst.Set(v)
	w.markChanged(e, id)
	return nil
}

// TableCopy is a copy of one archetype's rows, taken in one pass of memory
// copies: each column a Go slice of the component's type.
type TableCopy struct {
	ID         uint32
	Components []ComponentID
	Entities   []Entity
	Columns    []reflect.Value // slices, parallel to Components
}

// inspectCopyTables is [Inspection.CopyTables].
func (w *World) inspectCopyTables() []TableCopy { return w.Inspect().CopyTablesFor(Filter{}, nil) }

// inspectCopyTablesFor is [Inspection.CopyTablesFor].
func (w *World) inspectCopyTablesFor(f Filter, cols []ComponentID) []TableCopy {
	st := w.structureOf(&f)
	var out []TableCopy
	for _, t := range w.tables {
		if t.len() == 0 || !st.matches(t) {
			continue
		}
		c := TableCopy{ID: t.id, Entities: append([]Entity(nil), t.entities...)}
		for j, id := range t.ids {
			if cols != nil && !slices.Contains(cols, id) {
				continue
			}
			src := t.cols[j].value(0).Addr() // first element
			n := t.len()
			typ := src.Type().Elem()
			dst := reflect.MakeSlice(reflect.SliceOf(typ), n, n)
			reflect.Copy(dst, reflect.NewAt(reflect.ArrayOf(n, typ), src.UnsafePointer()).Elem())
			c.Components = append(c.Components, id)
			c.Columns = append(c.Columns, dst)
		}
		out = append(out, c)
	}
	return out
}

// inspectCopySparse is [Inspection.CopySparse].
func (w *World) inspectCopySparse(id ComponentID) ([]Entity, reflect.Value) {
	if int(id) >= len(w.sparse) || w.sparse[id] == nil {
		return nil, reflect.Value{}
	}
	s := w.sparse[id]
	n := s.length()
	ents := make([]Entity, n)
	vals := reflect.MakeSlice(reflect.SliceOf(w.reg.regs[id].info.Type), n, n)
	for i := range n {
		ents[i] = s.entityAt(i)
		v, _ := s.value(ents[i])
		vals.Index(i).Set(v)
	}
	return ents, vals
}

// inspectCandidateRows is [Inspection.CandidateRows].
func (w *World) inspectCandidateRows(f Filter) int {
	st := w.structureOf(&f)
	n := 0
	for _, t := range w.tables {
		if st.matches(t) {
			n += t.len()
		}
	}
	return n
}

// inspectComponentRows is [Inspection.ComponentRows].
func (w *World) inspectComponentRows(id ComponentID) int {
	if int(id) >= len(w.reg.regs) {
		return 0
	}
	if int(id) < len(w.sparse) && w.sparse[id] != nil {
		return w.sparse[id].length()
	}
	n := 0
	for _, t := range w.tables {
		if t.column(id) >= 0 {
			n += t.len()
		}
	}
	return n
}

// take meets the next rows, in order: it appends to window those that
// fall in the page, copied, and returns it.
func (p *Pager) take(window, rows []Entity) []Entity {
	lo, hi := p.Meet(len(rows), len(window))
	if lo >= hi {
		return window
	}
	return append(window, rows[lo:hi]...)
}
