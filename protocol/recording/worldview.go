package recording

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// Views of a WorldState: an entity's detail, a page of a query, the value
// of one component of one row. They read the state as it stands; indexes
// are built on first use after a frame is applied.

type entityLoc struct {
	t   *StateTable
	row int
}

type stateView struct {
	tables   []*StateTable // archetype tables by id
	where    map[protocol.EntityID]entityLoc
	sparse   map[uint16]map[protocol.EntityID]int // sparse component -> entity -> row
	children map[protocol.EntityID][]protocol.EntityID
	// heldBy is every relation's holders by target (ChildOf aside), built
	// on the first detail that asks (heldBy).
	heldBy  map[protocol.EntityID][]protocol.HeldBy
	schemas map[uint16]*protocol.Component
	childOf int // ChildOf's component id, or -1
	bits    map[*StateColumn][2][]uint64
}

func (s *WorldState) v() *stateView {
	if s.view != nil {
		return s.view
	}
	v := &stateView{where: map[protocol.EntityID]entityLoc{}, sparse: map[uint16]map[protocol.EntityID]int{}, children: map[protocol.EntityID][]protocol.EntityID{},
		schemas: map[uint16]*protocol.Component{}, childOf: -1, bits: map[*StateColumn][2][]uint64{}}
	for _, t := range s.Tables {
		if t.Sparse {
			m := make(map[protocol.EntityID]int, len(t.Entities))
			for i, e := range t.Entities {
				m[e] = i
			}
			v.sparse[uint16(t.Archetype)] = m
			continue
		}
		v.tables = append(v.tables, t)
		for i, e := range t.Entities {
			v.where[e] = entityLoc{t, i}
		}
	}
	sort.Slice(v.tables, func(i, j int) bool { return v.tables[i].Archetype < v.tables[j].Archetype })
	for _, l := range s.Links {
		v.children[l.Parent] = l.Children
	}
	if s.Summary != nil {
		for i := range s.Summary.Components {
			c := &s.Summary.Components[i]
			v.schemas[c.ID] = c
			if c.Short == "ChildOf" {
				v.childOf = int(c.ID)
			}
		}
	}
	s.view = v
	return v
}

// Components lists the component schemas at this state.
func (s *WorldState) Components() []protocol.Component {
	if s.Summary == nil {
		return nil
	}
	return s.Summary.Components
}

// Alive reports whether e is alive at this state.
func (s *WorldState) Alive(e protocol.EntityID) bool {
	_, ok := s.v().where[e]
	return ok
}

// Entities is how many entities are alive.
func (s *WorldState) Entities() int { return len(s.v().where) }

// value returns column j of row as a Value.
func (s *WorldState) value(t *StateTable, j, row int) protocol.Value {
	col := &t.Columns[j]
	if col.Kind == protocol.ColumnValues {
		if row < len(col.Values) {
			return col.Values[row]
		}
		return protocol.Nil()
	}
	c := s.v().schemas[t.Components[j]]
	if c == nil || col.Size == 0 {
		return protocol.MapValue()
	}
	end := (row + 1) * col.Size
	if end > len(col.Raw) {
		return protocol.Nil()
	}
	return protocol.RawValue(c.Fields, col.Raw[row*col.Size:end])
}

// ComponentValue returns component c of entity e, if it has it.
func (s *WorldState) ComponentValue(e protocol.EntityID, c uint16) (protocol.Value, bool) {
	v := s.v()
	if l, ok := v.where[e]; ok {
		if j := slices.Index(l.t.Components, c); j >= 0 {
			return s.value(l.t, j, l.row), true
		}
	}
	if rows, ok := v.sparse[c]; ok {
		if r, ok := rows[e]; ok {
			return s.value(s.Tables[tableKey(uint32(c), true)], 0, r), true
		}
	}
	return protocol.Nil(), false
}

// Parent returns e's parent, 0 if none.
func (s *WorldState) Parent(e protocol.EntityID) protocol.EntityID {
	v := s.v()
	if v.childOf < 0 {
		return 0
	}
	p, ok := s.ComponentValue(e, uint16(v.childOf))
	if !ok {
		return 0
	}
	if pv, ok := p.Get("Parent"); ok {
		return protocol.EntityID(pv.Uint())
	}
	return 0
}

// Detail is entity e as the state holds it, as the agent would answer a
// GetEntity: alive or not (and why), archetype and row, parent, children,
// every component with its value.
func (s *WorldState) Detail(e protocol.EntityID) *protocol.Detail {
	v := s.v()
	d := &protocol.Detail{Tick: s.Tick, Entity: e}
	l, ok := v.where[e]
	if !ok {
		d.Reason = fmt.Sprintf("%s is not alive at tick %d", e, s.Tick)
		for other := range v.where {
			if other.Index() == e.Index() {
				d.Reason = fmt.Sprintf("%s is stale at tick %d: slot %d holds %s", e, s.Tick, e.Index(), other)
				break
			}
		}
		if g, ok := s.DeadEntity(e); ok { // its last state, as the agent kept it
			g.Into(d)
			d.Reason = fmt.Sprintf("%s was despawned at tick %d by %s", e, g.Died.Tick, g.Died.By)
		}
		return d
	}
	d.Alive, d.Archetype, d.Row = true, l.t.Archetype, l.row
	d.Parent = s.Parent(e)
	d.Children = v.children[e]
	d.HeldBy = s.heldBy(e)
	for j, c := range l.t.Components {
		d.Components = append(d.Components, protocol.ComponentValue{Component: s.componentName(c), Value: s.value(l.t, j, l.row)})
	}
	for c, rows := range v.sparse {
		if r, ok := rows[e]; ok {
			d.Components = append(d.Components, protocol.ComponentValue{Component: s.componentName(c), Value: s.value(s.Tables[tableKey(uint32(c), true)], 0, r)})
		}
	}
	return d
}

// heldBy is what points at e through each relation but ChildOf, as the
// agent's Detail says it (a count and the first MaxDetailChildren
// holders), from an index of the state's relations built on first use.
func (s *WorldState) heldBy(e protocol.EntityID) []protocol.HeldBy {
	v := s.v()
	if v.heldBy == nil {
		v.heldBy = map[protocol.EntityID][]protocol.HeldBy{}
		for _, c := range s.Components() {
			f := query.TargetField(&c)
			if f == "" || c.Short == "ChildOf" {
				continue
			}
			byTarget := map[protocol.EntityID]*protocol.HeldBy{}
			var order []protocol.EntityID
			plan, err := s.plan(c.Short, "")
			if err != nil {
				continue
			}
			plan.Each(s.world(0), func(h query.Hit) {
				val, _ := s.ComponentValue(h.Entity(), c.ID)
				tv, ok := val.Get(f)
				if !ok || tv.Uint() == 0 {
					return
				}
				t := protocol.EntityID(tv.Uint())
				hb := byTarget[t]
				if hb == nil {
					hb = &protocol.HeldBy{Kind: c.Short}
					byTarget[t] = hb
					order = append(order, t)
				}
				if hb.Count++; len(hb.Holders) < protocol.MaxDetailChildren {
					hb.Holders = append(hb.Holders, h.Entity())
				}
			})
			for _, t := range order {
				v.heldBy[t] = append(v.heldBy[t], *byTarget[t])
			}
		}
	}
	return v.heldBy[e]
}

func (s *WorldState) componentName(id uint16) string {
	if c := s.v().schemas[id]; c != nil {
		return c.Short
	}
	return fmt.Sprintf("component %d", id)
}

// Query runs a page request on the state: expr (or archetype arch-1 when
// arch > 0), rows from offset, at most limit (DefaultPageLimit when 0).
// changed() and added() compare with the frame before this one.
func (s *WorldState) Query(expr string, arch int64, offset, limit int) (*protocol.Page, error) {
	return s.QuerySorted(expr, "", arch, offset, limit)
}

// QuerySorted is Query with the rows sorted by a field (see CompileSort;
// "" keeps the world's order), as the agent sorts a page.
func (s *WorldState) QuerySorted(expr, sortBy string, arch int64, offset, limit int) (*protocol.Page, error) {
	plan, err := s.plan(expr, sortBy)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = protocol.DefaultPageLimit
	}
	cols := plan.Query().Columns
	window, total := plan.Page(s.world(arch), offset, limit)
	page := &protocol.Page{Tick: s.Tick, Full: true, Offset: offset, Columns: cols, Total: total}
	for _, h := range window {
		page.Rows = append(page.Rows, s.row(h.Entity(), cols))
	}
	return page, nil
}

// plan compiles a query and a sort ("" for none) against the state's
// components.
func (s *WorldState) plan(expr, sortBy string) (*query.Plan, error) {
	q, err := query.CompileQuery(expr, s.Components())
	if err != nil {
		return nil, err
	}
	var key *query.SortKey
	if sortBy != "" {
		if key, err = query.CompileSort(sortBy, s.Components()); err != nil {
			return nil, err
		}
	}
	return query.NewPlan(q, key), nil
}

// row is e's values of the page's columns (Nil where it lacks one).
func (s *WorldState) row(e protocol.EntityID, cols []uint16) protocol.Row {
	r := protocol.Row{Entity: e, Values: make([]protocol.Value, len(cols))}
	for i, c := range cols {
		r.Values[i], _ = s.ComponentValue(e, c)
	}
	return r
}

// world is the state as the query evaluator reads it: its archetype
// tables in order (archetype arch-1 alone when arch > 0).
func (s *WorldState) world(arch int64) query.World {
	w := stateWorld{s: s}
	for _, t := range s.v().tables {
		if arch <= 0 || int64(t.Archetype) == arch-1 {
			w.tables = append(w.tables, stateTable{s: s, t: t})
		}
	}
	return w
}

// stateWorld is a state's tables for the query evaluator.
type stateWorld struct {
	s      *WorldState
	tables []query.Table
}

func (w stateWorld) Tables() []query.Table                        { return w.tables }
func (w stateWorld) Parent(e protocol.EntityID) protocol.EntityID { return w.s.Parent(e) }
func (w stateWorld) Filtered() bool                               { return false }

// stateTable is one archetype table of a state.
type stateTable struct {
	s *WorldState
	t *StateTable
}

func (t stateTable) Len() int                         { return len(t.t.Entities) }
func (t stateTable) Entity(row int) protocol.EntityID { return t.t.Entities[row] }
func (t stateTable) Column(c uint16) query.Column {
	if j := slices.Index(t.t.Components, c); j >= 0 {
		return stateColumn{s: t.s, t: t.t, j: j}
	}
	if at, ok := t.s.v().sparse[c]; ok {
		return stateColumn{s: t.s, t: t.s.Tables[tableKey(uint32(c), true)], rows: t.t, at: at}
	}
	return nil
}

// stateColumn is a component's values over a table's rows: column j of t,
// or, for a sparse component (at not nil), the sparse table t's values of
// the entities in rows.
type stateColumn struct {
	s    *WorldState
	t    *StateTable
	j    int
	rows *StateTable
	at   map[protocol.EntityID]int
}

// locate is the row of t holding the value of the row'th entity.
func (c stateColumn) locate(row int) (int, bool) {
	if c.at == nil {
		return row, true
	}
	r, ok := c.at[c.rows.Entities[row]]
	return r, ok
}

func (c stateColumn) Has(row int) bool {
	_, ok := c.locate(row)
	return ok
}

func (c stateColumn) Raw(row int) []byte {
	r, ok := c.locate(row)
	col := &c.t.Columns[c.j]
	if !ok || col.Kind != protocol.ColumnRaw || col.Size <= 0 || (r+1)*col.Size > len(col.Raw) {
		return nil
	}
	return col.Raw[r*col.Size : (r+1)*col.Size]
}

func (c stateColumn) Value(row int) protocol.Value {
	r, ok := c.locate(row)
	if !ok {
		return protocol.Nil()
	}
	return c.s.value(c.t, c.j, r)
}

func (c stateColumn) Changed(row int) bool { return c.in(row, 0) }
func (c stateColumn) Added(row int) bool   { return c.in(row, 1) }

func (c stateColumn) in(row, which int) bool {
	r, ok := c.locate(row)
	return ok && c.s.rowIn(&c.t.Columns[c.j], r, which)
}

// rowIn reports whether row is in the column's changed (which 0) or added
// (which 1) rows of the last frame.
func (s *WorldState) rowIn(col *StateColumn, row, which int) bool {
	v := s.v()
	b, ok := v.bits[col]
	if !ok {
		for k, rows := range [][]int32{col.Changed, col.Added} {
			set := make([]uint64, (max(col.Entities(), int(lastRow(rows)))+64)/64)
			for _, r := range rows {
				set[r/64] |= 1 << (r % 64)
			}
			b[k] = set
		}
		v.bits[col] = b
	}
	set := b[which]
	return row/64 < len(set) && set[row/64]&(1<<(row%64)) != 0
}

func lastRow(rows []int32) int32 {
	if len(rows) == 0 {
		return 0
	}
	return rows[len(rows)-1] + 1
}

// Entities is how many rows the column holds values for.
func (c *StateColumn) Entities() int {
	if c.Kind == protocol.ColumnValues {
		return len(c.Values)
	}
	if c.Size == 0 {
		return 0
	}
	return len(c.Raw) / c.Size
}

// Resource is the page of the value at path in resource name as the agent
// would have answered a GetResource at this tick (resources are recorded
// whole).
func (s *WorldState) Resource(name, path string, offset, limit int, all bool) (*protocol.ResourcePage, error) {
	r, err := protocol.FindResource(s.Summary.Resources, name)
	if err != nil {
		return nil, err
	}
	p, err := protocol.PageOfValue(r.Name, r.Value, r.Schema(), path, offset, limit, all)
	if err != nil {
		return nil, fmt.Errorf("resource %s: %w", name, err)
	}
	p.Tick = s.Tick
	return p, nil
}
