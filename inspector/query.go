package inspector

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// compiledQuery is a query expression resolved against a world.
type compiledQuery struct {
	filter  ecs.Filter        // the kernel's tests; Match runs preds live
	preds   []fieldPred       // field tests, on a component's value
	columns []ecs.ComponentID // the page's columns: named components, in order
}

// fieldPred is one field test of a query, on a value of component comp.
type fieldPred struct {
	comp ecs.ComponentID
	test func(reflect.Value) bool
}

// compileQuery parses expr and resolves its component names in w. since
// is the change tick that changed() and added() compare with.
func compileQuery(w *ecs.World, expr string, since uint32) (*compiledQuery, error) {
	ex, err := protocol.ParseQuery(expr)
	if err != nil {
		return nil, err
	}
	q := &compiledQuery{}
	q.filter.Since = since
	seen := map[ecs.ComponentID]bool{}
	column := func(id ecs.ComponentID) {
		if !seen[id] {
			seen[id] = true
			q.columns = append(q.columns, id)
		}
	}
	for _, t := range ex.Terms {
		var id ecs.ComponentID
		if t.Kind != protocol.TermChildOf {
			info, ok := w.ComponentByName(t.Component)
			if !ok {
				return nil, &protocol.QueryError{Col: t.Col, Msg: fmt.Sprintf("no component named %s%s", t.Component, suggest(w, t.Component))}
			}
			id = info.ID
		}
		switch t.Kind {
		case protocol.TermWith:
			q.filter.With = append(q.filter.With, id)
			column(id)
		case protocol.TermWithout:
			q.filter.Without = append(q.filter.Without, id)
		case protocol.TermOptional:
			column(id)
		case protocol.TermChanged:
			q.filter.Changed = append(q.filter.Changed, id)
			column(id)
		case protocol.TermAdded:
			q.filter.Added = append(q.filter.Added, id)
			column(id)
		case protocol.TermChildOf:
			q.filter.Parent = ecsEntity(t.Entity)
		case protocol.TermField:
			q.filter.With = append(q.filter.With, id)
			column(id)
			p, err := fieldPredicate(w, id, t)
			if err != nil {
				return nil, err
			}
			q.preds = append(q.preds, fieldPred{comp: id, test: p})
		}
	}
	if len(ex.Terms) == 0 { // everything: show every component there is
		for _, c := range w.Components() {
			column(c.ID)
		}
	}
	if len(q.preds) > 0 {
		preds := q.preds
		q.filter.Match = func(e ecs.Entity) bool {
			for _, p := range preds {
				v, ok := w.Value(e, p.comp)
				if !ok || !p.test(v) {
					return false
				}
			}
			return true
		}
	}
	return q, nil
}

// suggest names a registered component close to name, for error messages.
func suggest(w *ecs.World, name string) string {
	var names []string
	for _, c := range w.Components() {
		if strings.EqualFold(c.Short, name) || strings.HasPrefix(strings.ToLower(c.Short), strings.ToLower(name)) {
			return " (did you mean " + c.Short + "?)"
		}
		names = append(names, c.Short)
	}
	if len(names) > 0 && len(names) <= 12 {
		return " (components: " + strings.Join(names, ", ") + ")"
	}
	return ""
}

// fieldPredicate checks the path against the component's type now, and
// returns the test of one value of the component.
func fieldPredicate(w *ecs.World, id ecs.ComponentID, t protocol.Term) (func(reflect.Value) bool, error) {
	typ := w.Component(id).Type
	steps, leaf, err := resolvePath(typ, t.Path)
	if err != nil {
		return nil, &protocol.QueryError{Col: t.Col, Msg: fmt.Sprintf("%s.%s: %v", t.Component, t.Path, err)}
	}
	kind := leafKind(leaf)
	switch {
	case t.Value.Kind() == protocol.KindString && kind != "string":
		return nil, &protocol.QueryError{Col: t.Col, Msg: fmt.Sprintf("%s.%s is a %s, compared with a string", t.Component, t.Path, leaf)}
	case t.Value.Kind() == protocol.KindFloat && kind != "number":
		return nil, &protocol.QueryError{Col: t.Col, Msg: fmt.Sprintf("%s.%s is a %s, compared with a number", t.Component, t.Path, leaf)}
	case t.Value.Kind() == protocol.KindBool && kind != "bool":
		return nil, &protocol.QueryError{Col: t.Col, Msg: fmt.Sprintf("%s.%s is a %s, compared with true or false", t.Component, t.Path, leaf)}
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
		return t.Holds(toValue(v))
	}, nil
}

type pathStep struct {
	field int // struct field index, or -1
	index int // array or slice index, or -1
}

// resolvePath turns "Pos.X" or "Slots[2].Count" into steps over typ.
func resolvePath(typ reflect.Type, path string) ([]pathStep, reflect.Type, error) {
	var steps []pathStep
	for part := range strings.SplitSeq(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if typ.Kind() != reflect.Struct {
			return nil, nil, fmt.Errorf("%s has no fields", typ)
		}
		f, ok := typ.FieldByName(name)
		if !ok || !f.IsExported() || len(f.Index) != 1 {
			return nil, nil, fmt.Errorf("no field %s", name)
		}
		steps = append(steps, pathStep{field: f.Index[0], index: -1})
		typ = f.Type
		for rest != "" {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, nil, fmt.Errorf("missing ]")
			}
			i, err := strconv.Atoi(rest[:end])
			if err != nil || i < 0 {
				return nil, nil, fmt.Errorf("index %q is not a whole number", rest[:end])
			}
			if typ.Kind() != reflect.Array && typ.Kind() != reflect.Slice {
				return nil, nil, fmt.Errorf("%s cannot be indexed", typ)
			}
			steps = append(steps, pathStep{field: -1, index: i})
			typ = typ.Elem()
			rest = strings.TrimPrefix(rest[end+1:], "[")
		}
	}
	return steps, typ, nil
}

func leafKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	}
	return t.String()
}
