package live

import (
	"reflect"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// A page is taken in two halves. On the game goroutine the agent finds the
// window's entities and copies their values (memory copies of plain data);
// on the client's writer goroutine the copies become wire values. Only
// values holding pointers (slices, maps, strings behind pointers) are
// converted on the game goroutine, since the game may change what they
// point to while the writer reads.

// Window is the game goroutine's half of a page: a window of rows and
// their values, copied.
type Window struct {
	id            uint32
	tick          uint64
	total, offset int
	cols          []ecs.ComponentID
	ents          []ecs.Entity
	vals          []columnCopy // per column
}

// columnCopy holds one column's values for the window's rows: copies of
// plain data (slice, has), or values converted at once (conv).
type columnCopy struct {
	slice reflect.Value // a slice of the component type, one per row
	has   []bool        // whether the row's entity has the component
	conv  []protocol.Value
}

// Capture keeps a window's values as the kernel copied them (one
// call for the whole window: ecs.Inspection.CopyWindow or CopyRows), on
// the game goroutine; values that hold pointers are converted here, the
// rest on the writer goroutine.
func (lw *World) Capture(id uint32, ents []ecs.Entity, total, offset int, cols []ecs.ComponentID, windows []ecs.ColumnWindow) *Window {
	pc := &Window{id: id, tick: lw.tick(), total: total, offset: offset, cols: cols, ents: ents, vals: make([]columnCopy, len(cols))}
	for j, cw := range windows {
		cc := &pc.vals[j]
		if !values.HoldsPointers(cw.Values.Type().Elem()) {
			cc.slice, cc.has = cw.Values, cw.Has
			continue
		}
		cc.conv = make([]protocol.Value, len(ents))
		for i, has := range cw.Has {
			if has {
				cc.conv[i] = values.Of(cw.Values.Index(i))
			}
		}
	}
	return pc
}

// Build turns the capture into a Page, off the game goroutine.
func (pc *Window) Build() *protocol.Page {
	p := &protocol.Page{Sub: pc.id, Tick: pc.tick, Full: true, Total: pc.total, Offset: pc.offset, Columns: make([]uint16, len(pc.cols))}
	for i, c := range pc.cols {
		p.Columns[i] = uint16(c)
	}
	p.Rows = make([]protocol.Row, len(pc.ents))
	for i, e := range pc.ents {
		vals := make([]protocol.Value, len(pc.cols))
		for j := range pc.cols {
			cc := &pc.vals[j]
			switch {
			case cc.conv != nil:
				vals[j] = cc.conv[i]
			case cc.has[i]:
				vals[j] = values.Of(cc.slice.Index(i))
			}
		}
		p.Rows[i] = protocol.Row{Entity: values.Handle(e), Values: vals}
	}
	return p
}

// Len is the window's rows.
func (pc *Window) Len() int { return len(pc.ents) }

// Size estimates the bytes of the page the capture becomes.
func (pc *Window) Size() int64 {
	n := int64(64 + 16*len(pc.ents))
	for _, cc := range pc.vals {
		if cc.slice.IsValid() {
			n += int64(cc.slice.Len()) * int64(cc.slice.Type().Elem().Size()+8)
		} else {
			n += int64(len(cc.conv)) * 32
		}
	}
	return n
}

// KernelPage captures the window [offset, offset+limit) of a query the kernel's
// tests answer whole (no field tests, no sort): the kernel pages it.
func (lw *World) KernelPage(id uint32, q *Query, offset, limit int) *Window {
	ents, total, windows := lw.w.Inspect().CopyWindow(q.Filter, offset, limit, q.Columns)
	return lw.Capture(id, ents, total, offset, q.Columns, windows)
}
