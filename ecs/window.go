package ecs

import "reflect"

// ColumnWindow is one component's values for a list of entities, as
// [Inspection.CopyRows] copies them: Values is a slice of the component's
// type, one element per entity (zero where it lacks the component), Has
// says which entities have it.
type ColumnWindow struct {
	Values reflect.Value
	Has    []bool
}

// inspectCopyWindow is [Inspection.CopyWindow].
func (w *World) inspectCopyWindow(f Filter, offset, limit int, cols []ComponentID) (ents []Entity, total int, values []ColumnWindow) {
	ents, total = w.Inspect().Scan(f, offset, limit)
	return ents, total, w.Inspect().CopyRows(ents, cols)
}

// inspectCopyRows is [Inspection.CopyRows].
func (w *World) inspectCopyRows(ents []Entity, cols []ComponentID) []ColumnWindow {
	out := make([]ColumnWindow, len(cols))
	for k, id := range cols {
		cw := &out[k]
		cw.Values = reflect.MakeSlice(reflect.SliceOf(w.reg.regs[id].info.Type), len(ents), len(ents))
		cw.Has = make([]bool, len(ents))
		if s := w.sparse[id]; s != nil {
			for i, e := range ents {
				if v, ok := s.value(e); ok {
					cw.Values.Index(i).Set(v)
					cw.Has[i] = true
				}
			}
			continue
		}
		for i := 0; i < len(ents); {
			rec, ok := w.record(ents[i])
			if !ok {
				i++
				continue
			}
			n := 1 // the run: the next entities in the next rows of the table
			for i+n < len(ents) {
				next, ok := w.record(ents[i+n])
				if !ok || next.table != rec.table || next.row != rec.row+uint32(n) {
					break
				}
				n++
			}
			if t := w.tables[rec.table]; t.column(id) >= 0 {
				reflect.Copy(cw.Values.Slice(i, i+n), w.columnSlice(t, t.column(id), int(rec.row), n))
				for j := i; j < i+n; j++ {
					cw.Has[j] = true
				}
			}
			i += n
		}
	}
	return out
}
