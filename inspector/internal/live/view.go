package live

import (
	"reflect"
	"slices"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// The agent's two views for the query evaluator (query.Plan): a query's
// copy of the kernel's tables, holding the rows the kernel's own tests
// passed, and one live entity, which watchpoints test.

// copyWorld is a query's copy as the evaluator reads it.
type copyWorld struct{ tables []query.Table }

func (w copyWorld) Tables() []query.Table                      { return w.tables }
func (w copyWorld) Parent(protocol.EntityID) protocol.EntityID { return 0 } // the kernel tested it
func (w copyWorld) Filtered() bool                             { return true }

// copyTable is the rows of one copied table that the kernel passed.
type copyTable struct {
	tc     *ecs.TableCopy
	rows   []int // rows of tc, in order; nil for every row
	sparse map[ecs.ComponentID]*sparseIndex
	raw    map[ecs.ComponentID]bool // components whose memory is read as is (rawReadable)
}

func (t *copyTable) Len() int {
	if t.rows == nil {
		return len(t.tc.Entities)
	}
	return len(t.rows)
}

func (t *copyTable) Entity(row int) protocol.EntityID { return values.Handle(t.tc.Entities[t.at(row)]) }

// at is the row of the copy holding the view's row.
func (t *copyTable) at(row int) int {
	if t.rows == nil {
		return row
	}
	return t.rows[row]
}

func (t *copyTable) Column(c uint16) query.Column {
	id := ecs.ComponentID(c)
	if j := slices.Index(t.tc.Components, id); j >= 0 {
		return newGoColumn(t.tc.Columns[j], t, nil, t.raw[id])
	}
	if s, ok := t.sparse[id]; ok {
		return newGoColumn(s.vals, t, s, t.raw[id])
	}
	return nil
}

// newGoColumn is a copied column of values; a plain one's bytes are read
// by address, with no reflection a row (a series' 32 field tests over
// 100,000 rows read them three million times).
func newGoColumn(vals reflect.Value, t *copyTable, s *sparseIndex, plain bool) *goColumn {
	c := &goColumn{vals: vals, table: t, sparse: s, plain: plain}
	if plain && vals.Len() > 0 {
		c.base, c.size = vals.Index(0).Addr().UnsafePointer(), vals.Type().Elem().Size()
	}
	return c
}

// sparseIndex is a sparse component's copied values, by entity.
type sparseIndex struct {
	vals reflect.Value
	at   map[ecs.Entity]int
}

// goColumn is Go values the evaluator reads: for the view's row r, element
// r of vals (no table: one live value), or the element of the table's row
// (or, sparse, of its entity). Its change bits are the kernel's: every row
// a view holds passed them (or they are not asked).
type goColumn struct {
	vals   reflect.Value // a slice, addressable elements; or one value (single)
	single bool          // vals is the one value of a one-row view
	table  *copyTable    // nil: vals is indexed by the view's row
	sparse *sparseIndex  // not nil: vals is indexed by entity
	plain  bool          // its memory can be read as bytes (rawReadable)
	// base and size are a plain slice's first element and element size:
	// Raw reads element i's bytes at base + i*size.
	base unsafe.Pointer
	size uintptr
}

// at is element i of the column's values.
func (c *goColumn) at(i int) reflect.Value {
	if c.single {
		return c.vals
	}
	return c.vals.Index(i)
}

// index is the element of vals holding row r's value.
func (c *goColumn) index(r int) (int, bool) {
	switch {
	case c.table == nil:
		return r, true
	case c.sparse != nil:
		i, ok := c.sparse.at[c.table.tc.Entities[c.table.at(r)]]
		return i, ok
	}
	return c.table.at(r), true
}

func (c *goColumn) Has(r int) bool {
	_, ok := c.index(r)
	return ok
}

func (c *goColumn) Raw(r int) []byte {
	i, ok := c.index(r)
	if !ok || !c.plain {
		return nil
	}
	if c.base != nil {
		return unsafe.Slice((*byte)(unsafe.Add(c.base, uintptr(i)*c.size)), c.size)
	}
	return values.Bytes(c.at(i))
}

func (c *goColumn) Value(r int) protocol.Value {
	i, ok := c.index(r)
	if !ok {
		return protocol.Nil()
	}
	return values.Of(c.at(i))
}

func (c *goColumn) Changed(int) bool { return true }
func (c *goColumn) Added(int) bool   { return true }

// liveEntity is one live entity as a world of one row, on the game
// goroutine: its components, its parent. changed() and added() are not
// asked of it (a watchpoint's checks find the written rows first). The
// agent keeps one and resets it for each entity, its columns in place.
type liveEntity struct {
	lw   *World
	e    ecs.Entity
	ids  [8]uint16
	cols [8]goColumn
	n    int
}

func (l *liveEntity) Tables() []query.Table { return []query.Table{l} }
func (l *liveEntity) Parent(e protocol.EntityID) protocol.EntityID {
	p, _ := l.lw.w.Parent(values.Entity(e))
	return values.Handle(p)
}
func (l *liveEntity) Filtered() bool               { return false }
func (l *liveEntity) Len() int                     { return 1 }
func (l *liveEntity) Entity(int) protocol.EntityID { return values.Handle(l.e) }
func (l *liveEntity) Column(c uint16) query.Column {
	for i := range l.n {
		if l.ids[i] == c {
			return &l.cols[i]
		}
	}
	v, ok := l.lw.w.Inspect().Value(l.e, ecs.ComponentID(c))
	if !ok {
		return nil
	}
	col := goColumn{vals: v, single: true, plain: l.lw.RawReadable(ecs.ComponentID(c))}
	if l.n == len(l.cols) {
		return &col
	}
	l.ids[l.n], l.cols[l.n] = c, col
	l.n++
	return &l.cols[l.n-1]
}

// RawReadable reports whether component id's values may be read as memory
// by the evaluator: the layout a recording's raw columns carry (numbers,
// bools and handles, in structs and arrays, on a little-endian machine),
// so a test reads the same bytes live and offline.
func (lw *World) RawReadable(id ecs.ComponentID) bool {
	for int(id) >= len(lw.rawOK) { // a component's layout never changes: asked once
		c := ecs.ComponentID(len(lw.rawOK))
		lw.rawOK = append(lw.rawOK, values.RawTravels(lw.schemas(), uint16(c), int(lw.w.Inspect().Component(c).Size)))
	}
	return lw.rawOK[id]
}
