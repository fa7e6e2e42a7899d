package live

import (
	"slices"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// A query with field tests over many rows is not evaluated on the game
// goroutine: there the agent runs the kernel's own tests (archetypes,
// ticks, sparse components, parent), which cost nanoseconds a row, and
// copies the columns the field tests and the page need, at memory speed;
// the field tests, the count and the window run on the client's writer
// goroutine over the copy. The page names the tick of the copy, so it is
// exactly what the game held then.

// MaxCopyBytes bounds the memory one query copied off the game goroutine
// may take; a query over it is refused as too large.
const MaxCopyBytes = 256 << 20

// inlineTests is the most field tests (rows times tests) a query may make
// on the game goroutine; a query that may need more runs on a copy.
const inlineTests = 20000

// QueryCopy is the game goroutine's half of a query run on a copy.
type QueryCopy struct {
	id            uint32
	tick          uint64
	offset, limit int
	q             *Query
	cands         []ecs.Entity    // entities that passed the kernel's tests, in table order
	allRows       bool            // no test per row: every row of the tables copied passed (cands is not made)
	tables        []ecs.TableCopy // the admitted tables, with the columns needed
	sparse        map[ecs.ComponentID]SparseCopy
	raw           map[ecs.ComponentID]bool // the copied components read as memory
}

// Heavy reports whether q may test more fields than a frame affords:
// its copy then shares the Sync's capture budget as a heavy job.
func (lw *World) Heavy(q *Query) bool {
	if q.Sorts() {
		return true // sorting reads every match
	}
	return lw.w.Inspect().CandidateRows(q.Filter)*len(q.Plan.Query().Fields) > inlineTests
}

// CopyQuery takes the game goroutine's half of q: the kernel's tests and
// the copies. It refuses a copy over MaxCopyBytes.
func (lw *World) CopyQuery(id uint32, q *Query, offset, limit int) (*QueryCopy, error) {
	if err := lw.CheckCopy(q); err != nil {
		return nil, err
	}
	qc := &QueryCopy{id: id, tick: lw.tick(), offset: offset, limit: limit, q: q, sparse: map[ecs.ComponentID]SparseCopy{}}
	if qc.allRows = !lw.testsRows(q.Filter); !qc.allRows {
		qc.cands, _ = lw.w.Inspect().Scan(q.Filter, 0, -1)
	}
	var tableCols []ecs.ComponentID
	qc.raw = map[ecs.ComponentID]bool{}
	for _, c := range copiedColumns(q) {
		qc.raw[c] = lw.RawReadable(c)
		if lw.w.Inspect().Component(c).Storage == ecs.SparseStorage {
			ents, vals := lw.w.Inspect().CopySparse(c)
			qc.sparse[c] = SparseCopy{id: c, ents: ents, vals: values.CloneIfShared(vals)}
		} else {
			tableCols = append(tableCols, c)
		}
	}
	if tableCols == nil {
		tableCols = []ecs.ComponentID{} // entities only
	}
	qc.tables = lw.w.Inspect().CopyTablesFor(q.Filter, tableCols)
	for i := range qc.tables {
		for j, col := range qc.tables[i].Columns {
			qc.tables[i].Columns[j] = values.CloneIfShared(col)
		}
	}
	return qc, nil
}

// testsRows reports whether the kernel tests f row by row (changes, a
// parent, a relation, a last Match, a sparse component): without such a
// test, the tables CopyTablesFor admits hold exactly the matches, and no
// scan is needed to find them.
func (lw *World) testsRows(f ecs.Filter) bool {
	if len(f.Changed) > 0 || len(f.Added) > 0 || !f.Parent.IsZero() || f.Match != nil || !f.Related.Target.IsZero() {
		return true
	}
	for _, ids := range [][]ecs.ComponentID{f.With, f.Without} {
		for _, c := range ids {
			if lw.w.Inspect().Component(c).Storage == ecs.SparseStorage {
				return true
			}
		}
	}
	return false
}

// copiedColumns are the components a copy of q holds: the page's columns
// and those the field tests and the sort read.
func copiedColumns(q *Query) []ecs.ComponentID {
	need := slices.Clone(q.Columns)
	for _, c := range q.Fields {
		if !slices.Contains(need, c) {
			need = append(need, c)
		}
	}
	if q.Sorts() && !slices.Contains(need, q.SortBy) {
		need = append(need, q.SortBy)
	}
	return need
}

// CheckCopy refuses a query whose copy would pass MaxCopyBytes, counted
// from the archetypes' sizes before anything is copied.
func (lw *World) CheckCopy(q *Query) error {
	rows := int64(lw.w.Inspect().CandidateRows(q.Filter))
	bytes := rows * 16
	for _, c := range copiedColumns(q) {
		bytes += rows * int64(lw.w.Inspect().Component(c).Size)
	}
	if bytes > MaxCopyBytes {
		return answer.Refuse(protocol.ErrTooLarge, "this query would copy %s of the world to test its fields (limit %s): narrow it with components", protocol.ByteSize(bytes), protocol.ByteSize(MaxCopyBytes))
	}
	return nil
}

// Size estimates the memory the copy holds.
func (qc *QueryCopy) Size() int64 {
	n := int64(len(qc.cands)) * 8
	for _, t := range qc.tables {
		n += int64(len(t.Entities)) * 8
		for _, c := range t.Columns {
			n += int64(c.Len()) * int64(c.Type().Elem().Size())
		}
	}
	for _, s := range qc.sparse {
		n += int64(len(s.ents)) * (8 + int64(s.vals.Type().Elem().Size()))
	}
	return n
}

// world is the copy as the query evaluator reads it, off the game
// goroutine: each admitted table's rows that the kernel passed.
func (qc *QueryCopy) world() copyWorld {
	sparse := make(map[ecs.ComponentID]*sparseIndex, len(qc.sparse))
	for c, s := range qc.sparse {
		at := make(map[ecs.Entity]int, len(s.ents))
		for i, e := range s.ents {
			at[e] = i
		}
		sparse[c] = &sparseIndex{vals: s.vals, at: at}
	}
	var w copyWorld
	if qc.allRows {
		for i := range qc.tables {
			w.tables = append(w.tables, &copyTable{tc: &qc.tables[i], sparse: sparse, raw: qc.raw})
		}
		return w
	}
	ti, row := 0, 0
	var cur *copyTable
	for _, e := range qc.cands {
		// Candidates come in table and row order, a subsequence of the
		// admitted tables' rows: walk both together.
		for ti < len(qc.tables) && (row >= len(qc.tables[ti].Entities) || qc.tables[ti].Entities[row] != e) {
			if row++; row >= len(qc.tables[ti].Entities) {
				ti, row = ti+1, 0
			}
		}
		if ti >= len(qc.tables) {
			break // cannot happen: the copy and the scan saw one world
		}
		if cur == nil || cur.tc != &qc.tables[ti] {
			cur = &copyTable{tc: &qc.tables[ti], rows: make([]int, 0, len(qc.tables[ti].Entities)), sparse: sparse, raw: qc.raw}
			w.tables = append(w.tables, cur)
		}
		cur.rows = append(cur.rows, row)
		row++
	}
	for _, t := range w.tables {
		if t := t.(*copyTable); len(t.rows) == len(t.tc.Entities) {
			t.rows = nil // every row: no index needed
		}
	}
	return w
}

// Build runs the plan over the copy and makes the page, off the game
// goroutine.
func (qc *QueryCopy) Build() *protocol.Page {
	window, total := qc.q.Plan.Page(qc.world(), qc.offset, qc.limit)
	p := &protocol.Page{Sub: qc.id, Tick: qc.tick, Full: true, Total: total, Offset: qc.offset, Columns: make([]uint16, len(qc.q.Columns))}
	for i, c := range qc.q.Columns {
		p.Columns[i] = uint16(c)
	}
	p.Rows = make([]protocol.Row, len(window))
	for i, h := range window {
		vals := make([]protocol.Value, len(qc.q.Columns))
		for j, c := range p.Columns {
			if col := h.Table().Column(c); col != nil && col.Has(h.Row) {
				vals[j] = col.Value(h.Row)
			}
		}
		p.Rows[i] = protocol.Row{Entity: h.Entity(), Values: vals}
	}
	return p
}

// Page takes a query's page on the game goroutine: the kernel's
// window when its tests are the whole query, else a copy of the rows the
// kernel passed, on which the plan runs off the game goroutine (a heavy
// frame when it tests many rows or sorts). Query requests and page
// subscriptions both take their pages here.
func (lw *World) Page(id uint32, q *Query, offset, limit int) (answer.Frame, error) {
	if q.Evaluates() {
		qc, err := lw.CopyQuery(id, q, offset, limit)
		if err != nil {
			return answer.Frame{}, err
		}
		return answer.Frame{Build: func() protocol.Message { return qc.Build() }, Size: qc.Size(), Heavy: lw.Heavy(q)}, nil
	}
	pc := lw.KernelPage(id, q, offset, limit)
	return answer.Frame{Build: func() protocol.Message { return pc.Build() }, Size: pc.Size()}, nil
}

// Aggregate folds the copy's matches into the sample, off the game
// goroutine.
func (qc *QueryCopy) Aggregate(m *protocol.Series, agg string) *protocol.Series {
	m.Value, m.N = qc.q.Plan.Sample(qc.world(), agg)
	return m
}

// Points reads two numeric fields of every match (query.Points): the
// copy's plan's sort field as x, y's sort field as y.
func (qc *QueryCopy) Points(y *query.Plan, add func(x, y float64)) {
	query.Points(qc.world(), qc.q.Plan, y, add)
}
