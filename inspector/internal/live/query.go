package live

import (
	"slices"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// Query is a query expression resolved against a world: the
// kernel's tests (components, change stamps, parent), which the kernel runs
// in its own loops, and the plan of the whole query (field tests, sort,
// paging), which runs over a copy of the rows the kernel passed (view.go)
// as it runs over a recording's world.
type Query struct {
	Filter  ecs.Filter        // the kernel's tests; no Match
	Plan    *query.Plan       // the whole query, for query.Plan.Page and Each
	Fields  []ecs.ComponentID // the components its field tests read
	Columns []ecs.ComponentID // the page's columns: named components, in order
	SortBy  ecs.ComponentID   // the sort's component, when it sorts
}

// Sorts reports whether the query's page is sorted.
func (q *Query) Sorts() bool { return q.Plan.Sort() != nil }

// Evaluates reports whether rows must go through the plan: field tests to
// run, or an order to sort in. Otherwise the kernel's tests are the whole
// query and the kernel pages it.
func (q *Query) Evaluates() bool { return len(q.Fields) > 0 || q.Sorts() }

// Compile compiles expr with query.CompileQuery, the compiler
// recordings and dump use too (so names, paths, errors and suggestions are
// the same live and offline), and splits it into the kernel's filter and
// the plan. since is the change stamp that changed() and added() compare
// with.
func Compile(schemas []protocol.Component, expr, sortBy string, since uint32) (*Query, error) {
	ex, err := query.ParseQuery(expr)
	if err != nil {
		return nil, err
	}
	return compileExpr(schemas, ex, sortBy, since)
}

// compileExpr is Compile of a parsed query.
func compileExpr(schemas []protocol.Component, ex *query.Expr, sortBy string, since uint32) (*Query, error) {
	pq, err := query.CompileExpr(ex, schemas)
	if err != nil {
		return nil, err
	}
	var key *query.SortKey
	if sortBy != "" {
		if key, err = query.CompileSort(sortBy, schemas); err != nil {
			return nil, err
		}
	}
	ids := func(l []uint16) []ecs.ComponentID {
		out := make([]ecs.ComponentID, len(l))
		for i, c := range l {
			out[i] = ecs.ComponentID(c)
		}
		return out
	}
	q := &Query{Plan: query.NewPlan(pq, key), Columns: ids(pq.Columns)}
	q.Filter.Since = since
	q.Filter.With, q.Filter.Without = ids(pq.With), ids(pq.Without)
	q.Filter.Changed, q.Filter.Added = ids(pq.Changed), ids(pq.Added)
	if pq.HasParent {
		q.Filter.Parent = values.Entity(pq.Parent)
	}
	for _, ft := range pq.Fields {
		if c := ecs.ComponentID(ft.Component); !slices.Contains(q.Fields, c) {
			q.Fields = append(q.Fields, c)
		}
	}
	if key != nil {
		q.SortBy = ecs.ComponentID(key.Field.Component)
	}
	return q, nil
}

// Holds reports whether a compiled query holds for e now: its components,
// parent and field tests, on the live entity (its changed() and added()
// terms are not asked).
func (lw *World) Holds(q *Query, e ecs.Entity) bool {
	one := &lw.one
	*one = liveEntity{lw: lw, e: e}
	return q.Plan.Holds(one, one, 0)
}

// World is the live world as the agent's queries read it, on the game
// goroutine: queries compiled against its components, pages answered by
// the kernel's window or on a copy, one entity tested (watchpoints), the
// world copied for a snapshot.
type World struct {
	w       *ecs.World
	schemas func() []protocol.Component
	tick    func() uint64
	rawOK   []bool     // by component: its memory is read as is (RawReadable)
	one     liveEntity // the entity Holds tests, its columns kept in place
}

// New reads w; schemas gives its components' schemas (the agent's, kept),
// tick the tick a page names.
func New(w *ecs.World, schemas func() []protocol.Component, tick func() uint64) *World {
	return &World{w: w, schemas: schemas, tick: tick}
}

// Compile compiles a query against the world's components (Compile).
func (lw *World) Compile(expr, sortBy string, since uint32) (*Query, error) {
	return Compile(lw.schemas(), expr, sortBy, since)
}

// CompileExpr is Compile of a query parsed already (a watchpoint's,
// query.WatchSpec.Expr), in the world's order.
func (lw *World) CompileExpr(ex *query.Expr) (*Query, error) {
	return compileExpr(lw.schemas(), ex, "", 0)
}
