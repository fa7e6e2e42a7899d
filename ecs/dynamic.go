package ecs

import (
	"fmt"
	"reflect"
	"slices"
)

// Dynamic access by component id, for tools that learn the components at
// run time (the inspector). Not for hot paths.

// inspectNextStamp is [Inspection.NextStamp].
func (w *World) inspectNextStamp() uint32 { return w.changeStamp.Add(1) }

// inspectChangedSince is [Inspection.ChangedSince].
func (w *World) inspectChangedSince(e Entity, id ComponentID, since uint32) bool {
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
	var all, none Mask
	var sparseWith, sparseWithout []sparseStore
	for _, id := range f.With {
		if s := w.sparse[id]; s != nil {
			sparseWith = append(sparseWith, s)
		} else {
			all.Set(id)
		}
	}
	for _, id := range f.Changed {
		if w.sparse[id] == nil {
			all.Set(id)
		}
	}
	for _, id := range f.Added {
		if w.sparse[id] == nil {
			all.Set(id)
		}
	}
	for _, id := range f.Without {
		if s := w.sparse[id]; s != nil {
			sparseWithout = append(sparseWithout, s)
		} else {
			none.Set(id)
		}
	}
	rowTests := len(sparseWith)+len(sparseWithout)+len(f.Changed)+len(f.Added) > 0 || !f.Parent.IsZero() || f.Match != nil
	// entityPass runs the tests that look up the entity; tick tests on
	// table components read the table's columns by row (rowPasses), and a
	// group of rows none of which can pass them is skipped whole.
	entityPass := func(e Entity) bool {
		for _, s := range sparseWith {
			if !s.has(e) {
				return false
			}
		}
		for _, s := range sparseWithout {
			if s.has(e) {
				return false
			}
		}
		for _, id := range f.Changed {
			if s := w.sparse[id]; s != nil && !s.changedSince(e, f.Since) {
				return false
			}
		}
		for _, id := range f.Added {
			if s := w.sparse[id]; s != nil && !s.addedSince(e, f.Since) {
				return false
			}
		}
		if !f.Parent.IsZero() {
			if p, ok := w.Parent(e); !ok || p != f.Parent {
				return false
			}
		}
		return f.Match == nil || f.Match(e)
	}
	var changedCols, addedCols, tickCols []*colStamps
	want := func() bool { return limit < 0 || len(window) < limit }
	for _, t := range w.tables {
		if t.len() == 0 || !t.mask.ContainsAll(&all) || t.mask.ContainsAny(&none) {
			continue
		}
		if !rowTests {
			n := t.len()
			if want() && offset < total+n {
				lo := max(offset-total, 0)
				hi := n
				if limit >= 0 {
					hi = min(n, lo+limit-len(window))
				}
				window = append(window, t.entities[lo:hi]...)
			}
			total += n
			continue
		}
		changedCols, addedCols = changedCols[:0], addedCols[:0]
		for _, id := range f.Changed {
			if j := t.column(id); j >= 0 {
				changedCols = append(changedCols, t.ticks[j])
			}
		}
		for _, id := range f.Added {
			if j := t.column(id); j >= 0 {
				addedCols = append(addedCols, t.ticks[j])
			}
		}
		tickCols = append(append(tickCols[:0], changedCols...), addedCols...)
		single := len(changedCols) == 1 && len(addedCols) == 0 // the common case: straight to the next changed row
		for r := 0; r < t.len(); r++ {
			if single {
				if r = changedCols[0].nextChanged(r, t.len(), f.Since); r >= t.len() {
					break
				}
			} else if r&(groupRows-1) == 0 && !groupMayPass(tickCols, r>>groupShift, f.Since) {
				r += groupRows - 1
				continue
			} else if !rowPasses(changedCols, addedCols, r, f.Since) {
				continue
			}
			if e := t.entities[r]; entityPass(e) {
				if total >= offset && want() {
					window = append(window, e)
				}
				total++
			}
		}
	}
	return window, total
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
	if id == childOfID {
		return errChildOfDirect
	}
	if v.Type() != w.reg.regs[id].info.Type {
		return fmt.Errorf("ecs: %s is not a %s", v.Type(), w.reg.regs[id].info.Short)
	}
	if err := w.Inspect().AddID(e, id); err != nil {
		return err
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
	all, none := w.tableMasks(f)
	var out []TableCopy
	for _, t := range w.tables {
		if t.len() == 0 || !t.mask.ContainsAll(&all) || t.mask.ContainsAny(&none) {
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

// groupMayPass reports whether a row of group g may pass every tick test
// on cols (a group's maximum bounds both its changed and added ticks).
func groupMayPass(cols []*colStamps, g int, since uint32) bool {
	for _, tk := range cols {
		if !tk.groupDirty(g, since) {
			return false
		}
	}
	return true
}

// rowPasses reports whether row passes every tick test.
func rowPasses(changed, added []*colStamps, row int, since uint32) bool {
	for _, tk := range changed {
		if !tk.changedSince(row, since) {
			return false
		}
	}
	for _, tk := range added {
		if !tk.addedSince(row, since) {
			return false
		}
	}
	return true
}

// inspectCandidateRows is [Inspection.CandidateRows].
func (w *World) inspectCandidateRows(f Filter) int {
	all, none := w.tableMasks(f)
	n := 0
	for _, t := range w.tables {
		if t.mask.ContainsAll(&all) && !t.mask.ContainsAny(&none) {
			n += t.len()
		}
	}
	return n
}

// tableMasks builds the masks of f's tests on table components: what a
// table must have (With, Changed, Added) and must not (Without).
func (w *World) tableMasks(f Filter) (all, none Mask) {
	for _, ids := range [][]ComponentID{f.With, f.Changed, f.Added} {
		for _, id := range ids {
			if int(id) < len(w.sparse) && w.sparse[id] == nil {
				all.Set(id)
			}
		}
	}
	for _, id := range f.Without {
		if int(id) < len(w.sparse) && w.sparse[id] == nil {
			none.Set(id)
		}
	}
	return all, none
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
