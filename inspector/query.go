package inspector

import (
	"reflect"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// compiledQuery is a query expression resolved against a world.
type compiledQuery struct {
	filter  ecs.Filter        // the kernel's tests; Match runs preds live
	preds   []fieldPred       // field tests, on a component's value
	columns []ecs.ComponentID // the page's columns: named components, in order
	sort    *sortSpec         // the page's order, or nil for the world's
}

// sortSpec is a page's sort: the key and where it sits in Go values.
type sortSpec struct {
	key   *query.SortKey
	comp  ecs.ComponentID
	steps []pathStep // nil: the value is converted whole (ChildOf)
}

// of returns the sort field of one Go value of the component.
func (s *sortSpec) of(v reflect.Value) (protocol.Value, bool) {
	if s.steps == nil {
		return s.key.Of(toValue(v))
	}
	for _, st := range s.steps {
		if st.index >= 0 {
			if st.index >= v.Len() {
				return protocol.Nil(), false
			}
			v = v.Index(st.index)
		} else {
			v = v.Field(st.field)
		}
	}
	return toValue(v), true
}

// fieldPred is one field test of a query, on a value of component comp.
type fieldPred struct {
	comp ecs.ComponentID
	test func(reflect.Value) bool
}

// compileQuery compiles expr with query.CompileQuery, the compiler
// recordings and dump use too (so names, paths, errors and suggestions are
// the same live and offline), and turns it into the kernel's filter and
// field tests on Go values. since is the change tick that changed() and
// added() compare with.
func compileQuery(w *ecs.World, schemas []protocol.Component, expr, sortBy string, since uint32) (*compiledQuery, error) {
	pq, err := query.CompileQuery(expr, schemas)
	if err != nil {
		return nil, err
	}
	var sort *sortSpec
	if sortBy != "" {
		key, err := query.CompileSort(sortBy, schemas)
		if err != nil {
			return nil, err
		}
		comp := ecs.ComponentID(key.Field.Component)
		steps, ok := reflectPath(w.Inspect().Component(comp).Type, key.Field.Steps)
		if !ok {
			steps = nil
		}
		sort = &sortSpec{key: key, comp: comp, steps: steps}
	}
	ids := func(l []uint16) []ecs.ComponentID {
		out := make([]ecs.ComponentID, len(l))
		for i, c := range l {
			out[i] = ecs.ComponentID(c)
		}
		return out
	}
	q := &compiledQuery{columns: ids(pq.Columns), sort: sort}
	q.filter.Since = since
	q.filter.With, q.filter.Without = ids(pq.With), ids(pq.Without)
	q.filter.Changed, q.filter.Added = ids(pq.Changed), ids(pq.Added)
	if pq.HasParent {
		q.filter.Parent = ecsEntity(pq.Parent)
	}
	for i := range pq.Fields {
		ft := &pq.Fields[i]
		q.preds = append(q.preds, fieldPred{comp: ecs.ComponentID(ft.Component), test: fieldPredicate(w.Inspect().Component(ecs.ComponentID(ft.Component)).Type, ft)})
	}
	if len(q.preds) > 0 {
		preds := q.preds
		q.filter.Match = func(e ecs.Entity) bool {
			for _, p := range preds {
				v, ok := w.Inspect().Value(e, p.comp)
				if !ok || !p.test(v) {
					return false
				}
			}
			return true
		}
	}
	return q, nil
}

// fieldPredicate returns the test of a compiled field term on one Go value
// of the component: it walks the path by field index and element where the
// Go type allows (the leaf alone is converted), else converts the whole
// value (ChildOf's parent is unexported, for one).
func fieldPredicate(typ reflect.Type, ft *query.FieldTest) func(reflect.Value) bool {
	steps, ok := reflectPath(typ, ft.Steps)
	if !ok {
		return func(v reflect.Value) bool { return ft.HoldsValue(toValue(v)) }
	}
	return func(v reflect.Value) bool {
		for _, s := range steps {
			if s.index >= 0 {
				if s.index >= v.Len() {
					return false
				}
				v = v.Index(s.index)
			} else {
				v = v.Field(s.field)
			}
		}
		return ft.Term.Holds(toValue(v))
	}
}

// reflectPath resolves compiled path steps on a Go type.
func reflectPath(typ reflect.Type, path []query.PathStep) ([]pathStep, bool) {
	var steps []pathStep
	for _, p := range path {
		if p.Index >= 0 {
			if typ.Kind() != reflect.Array && typ.Kind() != reflect.Slice {
				return nil, false
			}
			steps = append(steps, pathStep{field: -1, index: p.Index})
			typ = typ.Elem()
			continue
		}
		if typ.Kind() != reflect.Struct {
			return nil, false
		}
		f, ok := typ.FieldByName(p.Name)
		if !ok || !f.IsExported() || len(f.Index) != 1 {
			return nil, false
		}
		steps = append(steps, pathStep{field: f.Index[0], index: -1})
		typ = f.Type
	}
	return steps, true
}

type pathStep struct {
	field int // struct field index, or -1
	index int // array or slice index, or -1
}
