package query

import (
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The one evaluator. A compiled query runs as a Plan over a World: tables
// of rows in the world's order, each with a view of the columns the query
// reads. The agent's copies of the kernel's tables, a one-entity view of
// the live world (watchpoints) and a world rebuilt from frames (recordings,
// dump, the UI's replays) implement World; the plan, its row tests, its
// paging and its sorting are the same code for all of them.

// World is the rows a plan runs over.
type World interface {
	// Tables are the world's tables, in its order (by archetype, then row).
	Tables() []Table
	// Parent is e's parent, 0 for none.
	Parent(e protocol.EntityID) protocol.EntityID
	// Filtered reports that the tables hold only rows the kernel passed
	// for the query's component, change and parent tests (the agent's
	// copies): the plan then runs its field tests alone.
	Filtered() bool
}

// Table is one table's rows.
type Table interface {
	// Len is how many rows the table holds.
	Len() int
	// Entity is the entity at row.
	Entity(row int) protocol.EntityID
	// Column is the table's view of component c: nil when no row can hold
	// it (the table lacks it and it is not kept apart, as sparse ones are).
	Column(c uint16) Column
}

// Column is one component's values over a table's rows.
type Column interface {
	// Has reports whether the row's entity has the component: always for
	// a component of the table, per entity for a sparse one.
	Has(row int) bool
	// Raw is the value's memory at row, little-endian in its Go type's
	// layout, or nil when it is not plain data.
	Raw(row int) []byte
	// Value is the value at row as the wire shows it.
	Value(row int) protocol.Value
	// Changed and Added report whether the row's value was written, or the
	// component added, after the query's reference point.
	Changed(row int) bool
	Added(row int) bool
}

// Plan is a compiled query and sort ready to run over any World.
type Plan struct {
	q   *CompiledQuery
	key *SortKey // nil: the world's order
}

// NewPlan makes the plan of q, sorted by key (nil for the world's order).
func NewPlan(q *CompiledQuery, key *SortKey) *Plan { return &Plan{q: q, key: key} }

// Query is the compiled query the plan runs.
func (p *Plan) Query() *CompiledQuery { return p.q }

// Sort is the plan's sort key, or nil.
func (p *Plan) Sort() *SortKey { return p.key }

// Hit is a row that passed a plan.
type Hit struct {
	b   *binding
	Row int
}

// Table is the hit's table.
func (h Hit) Table() Table { return h.b.t }

// Entity is the hit's entity.
func (h Hit) Entity() protocol.EntityID { return h.b.t.Entity(h.Row) }

// SortValue is the plan's sort field at the hit (or the series field a
// plan samples), and whether the row has it.
func (h Hit) SortValue() (protocol.Value, bool) {
	c, k := h.b.sortCol, h.b.p.key
	if k == nil || c == nil || !c.Has(h.Row) {
		return protocol.Nil(), false
	}
	if k.Field.Fixed {
		if raw := c.Raw(h.Row); raw != nil {
			return protocol.RawField(k.Field.Leaf, raw, k.Field.Offset, 0), true
		}
	}
	return k.Of(c.Value(h.Row))
}

// binding is a plan bound to one table: the columns it reads there.
type binding struct {
	p                             *Plan
	t                             Table
	with, without, changed, added []Column
	fields                        []Column // parallel to the query's field tests
	sortCol                       Column
	structural                    bool  // the component, change and parent tests are the plan's to run
	w                             World // for parents
}

// bind binds the plan to t, or returns nil when no row of t can pass.
func (p *Plan) bind(w World, t Table) *binding {
	b, ok := p.bindInto(w, t, nil)
	if !ok {
		return nil
	}
	return &b
}

// bindInto binds the plan to t, its columns in store when it has room
// (else in a new slice); false when no row of t can pass.
func (p *Plan) bindInto(w World, t Table, store []Column) (b binding, ok bool) {
	q := p.q
	b = binding{p: p, t: t, w: w, structural: !w.Filtered()}
	if n := len(q.With) + len(q.Changed) + len(q.Added) + len(q.Without) + len(q.Fields); cap(store) < n {
		store = make([]Column, 0, n)
	}
	store = store[:0]
	if store, ok = appendColumns(store, t, q.With, true); !ok {
		return b, false
	}
	b.with = store
	if store, ok = appendColumns(store, t, q.Changed, true); !ok {
		return b, false
	}
	b.changed = store[len(b.with):]
	if store, ok = appendColumns(store, t, q.Added, true); !ok {
		return b, false
	}
	b.added = store[len(b.with)+len(b.changed):]
	done := len(store)
	store, _ = appendColumns(store, t, q.Without, false)
	b.without = store[done:]
	done = len(store)
	for i := range q.Fields {
		col := t.Column(q.Fields[i].Component)
		if col == nil {
			return b, false
		}
		store = append(store, col)
	}
	b.fields = store[done:]
	b.with = b.with[:len(q.With):len(q.With)]
	if p.key != nil {
		b.sortCol = t.Column(p.key.Field.Component)
	}
	return b, true
}

// appendColumns appends t's columns of ids to store; false when one is
// missing and need says it must not be.
func appendColumns(store []Column, t Table, ids []uint16, need bool) ([]Column, bool) {
	for _, c := range ids {
		col := t.Column(c)
		if col == nil && need {
			return store, false
		}
		store = append(store, col)
	}
	return store, true
}

// passes runs the row tests on one row of the bound table.
func (b *binding) passes(row int) bool {
	q := b.p.q
	if b.structural {
		for _, c := range b.with {
			if !c.Has(row) {
				return false
			}
		}
		for _, c := range b.without {
			if c != nil && c.Has(row) {
				return false
			}
		}
		for _, c := range b.changed {
			if !c.Has(row) || !c.Changed(row) {
				return false
			}
		}
		for _, c := range b.added {
			if !c.Has(row) || !c.Added(row) {
				return false
			}
		}
		if q.HasParent && b.w.Parent(b.t.Entity(row)) != q.Parent {
			return false
		}
	}
	for i := range q.Fields {
		if c := b.fields[i]; !c.Has(row) || !q.Fields[i].HoldsAt(c, row) {
			return false
		}
	}
	return true
}

// HoldsAt tests the term on a column's value at row: on its memory when
// the column has it and the path sits at a fixed place, else on the wire
// value.
func (ft *FieldTest) HoldsAt(c Column, row int) bool {
	if ft.Fixed {
		if raw := c.Raw(row); raw != nil {
			return ft.HoldsRaw(raw)
		}
	}
	return ft.HoldsValue(c.Value(row))
}

// Each calls fn with every row of w that passes the plan, in the world's
// order.
func (p *Plan) Each(w World, fn func(Hit)) {
	for _, t := range w.Tables() {
		b := p.bind(w, t)
		if b == nil {
			continue
		}
		for row := range t.Len() {
			if b.passes(row) {
				fn(Hit{b: b, Row: row})
			}
		}
	}
}

// Page runs the plan over w: the rows from offset, at most limit, in the
// plan's order, and how many rows pass in all.
func (p *Plan) Page(w World, offset, limit int) (window []Hit, total int) {
	win := NewWindow(offset, limit, p.key, Hit.SortValue)
	p.Each(w, win.Add)
	return win.Rows(), win.Total()
}

// Holds reports whether row of table t passes the plan (its changed() and
// added() terms included when w does not filter). For a plan of up to 16
// tests it allocates nothing of its own.
func (p *Plan) Holds(w World, t Table, row int) bool {
	var store [16]Column
	b, ok := p.bindInto(w, t, store[:0])
	return ok && b.passes(row)
}

// Sample folds the plan's matches in w into a series aggregate: count, or
// min, mean, max or sum of the plan's sort field (see protocol.ParseSeries).
func (p *Plan) Sample(w World, aggregate string) (value *float64, n int) {
	fold := protocol.NewFold(aggregate)
	p.Each(w, func(h Hit) {
		if aggregate == "count" {
			fold.Count()
			return
		}
		if v, ok := h.SortValue(); ok {
			if x, ok := v.Number(); ok {
				fold.Add(x)
			}
		}
	})
	return fold.Value(), fold.N
}
