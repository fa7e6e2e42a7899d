package inspector

import (
	"slices"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// compiledQuery is a query expression resolved against a world: the
// kernel's tests (components, change stamps, parent), which the kernel runs
// in its own loops, and the plan of the whole query (field tests, sort,
// paging), which runs over a copy of the rows the kernel passed (queryview.go)
// as it runs over a recording's world.
type compiledQuery struct {
	filter  ecs.Filter        // the kernel's tests; no Match
	plan    *query.Plan       // the whole query, for query.Plan.Page and Each
	fields  []ecs.ComponentID // the components its field tests read
	columns []ecs.ComponentID // the page's columns: named components, in order
	sortBy  ecs.ComponentID   // the sort's component, when it sorts
}

// sorts reports whether the query's page is sorted.
func (q *compiledQuery) sorts() bool { return q.plan.Sort() != nil }

// evaluates reports whether rows must go through the plan: field tests to
// run, or an order to sort in. Otherwise the kernel's tests are the whole
// query and the kernel pages it.
func (q *compiledQuery) evaluates() bool { return len(q.fields) > 0 || q.sorts() }

// compileQuery compiles expr with query.CompileQuery, the compiler
// recordings and dump use too (so names, paths, errors and suggestions are
// the same live and offline), and splits it into the kernel's filter and
// the plan. since is the change stamp that changed() and added() compare
// with.
func compileQuery(schemas []protocol.Component, expr, sortBy string, since uint32) (*compiledQuery, error) {
	pq, err := query.CompileQuery(expr, schemas)
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
	q := &compiledQuery{plan: query.NewPlan(pq, key), columns: ids(pq.Columns)}
	q.filter.Since = since
	q.filter.With, q.filter.Without = ids(pq.With), ids(pq.Without)
	q.filter.Changed, q.filter.Added = ids(pq.Changed), ids(pq.Added)
	if pq.HasParent {
		q.filter.Parent = values.Entity(pq.Parent)
	}
	for _, ft := range pq.Fields {
		if c := ecs.ComponentID(ft.Component); !slices.Contains(q.fields, c) {
			q.fields = append(q.fields, c)
		}
	}
	if key != nil {
		q.sortBy = ecs.ComponentID(key.Field.Component)
	}
	return q, nil
}

// holds reports whether a compiled query holds for e now: its components,
// parent and field tests, on the live entity (its changed() and added()
// terms are not asked).
func (a *Agent) holds(q *compiledQuery, e ecs.Entity) bool {
	one := &a.liveView
	*one = liveEntity{a: a, e: e}
	return q.plan.Holds(one, one, 0)
}
