package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// CompiledQuery is a query expression resolved against a world's
// components: names to ids, field paths checked against the schemas,
// literals against the fields' kinds. The agent, the recording player and
// dump all compile through it, so a query means the same live and offline
// and fails with the same message.
type CompiledQuery struct {
	Expr           *Expr
	With, Without  []uint16
	Changed, Added []uint16          // each also required
	Parent         protocol.EntityID // childof(...); 0 for none
	Fields         []FieldTest
	Columns        []uint16 // a page's columns: named components in order (every one for an empty query)
	HasParent      bool
}

// FieldTest is one compiled NAME.PATH OP VALUE term.
type FieldTest struct {
	Component uint16
	Steps     []PathStep
	Leaf      *protocol.FieldSchema
	Term      Term
	// Offset is where the leaf sits in the value's memory, when every step
	// is a struct field or an array element (Fixed); raw values are then
	// tested without decoding.
	Offset int
	Fixed  bool
}

// PathStep is one step of a field path: a struct field by name, or a list
// element by index (Index >= 0).
type PathStep struct {
	Name  string
	Index int
}

// CompileQuery parses expr and resolves it against comps.
func CompileQuery(expr string, comps []protocol.Component) (*CompiledQuery, error) {
	ex, err := ParseQuery(expr)
	if err != nil {
		return nil, err
	}
	return CompileExpr(ex, comps)
}

// CompileExpr resolves a parsed query against comps (a watchpoint's,
// parsed once with its expression: WatchSpec.Expr).
func CompileExpr(ex *Expr, comps []protocol.Component) (*CompiledQuery, error) {
	q := &CompiledQuery{Expr: ex}
	byName := make(map[string]*protocol.Component, len(comps))
	for i := range comps {
		byName[comps[i].Short] = &comps[i]
	}
	seen := map[uint16]bool{}
	column := func(id uint16) {
		if !seen[id] {
			seen[id] = true
			q.Columns = append(q.Columns, id)
		}
	}
	for _, t := range ex.Terms {
		var c *protocol.Component
		if t.Kind != TermChildOf {
			if c = byName[t.Component]; c == nil {
				return nil, &QueryError{Col: t.Col, Msg: fmt.Sprintf("no component named %s%s", t.Component, SuggestComponent(comps, t.Component))}
			}
		}
		switch t.Kind {
		case TermWith:
			q.With = append(q.With, c.ID)
			column(c.ID)
		case TermWithout:
			q.Without = append(q.Without, c.ID)
		case TermOptional:
			column(c.ID)
		case TermChanged:
			q.Changed = append(q.Changed, c.ID)
			column(c.ID)
		case TermAdded:
			q.Added = append(q.Added, c.ID)
			column(c.ID)
		case TermChildOf:
			q.Parent, q.HasParent = t.Entity, true
		case TermField, TermRelated: // a relation's target is a field test of its own
			compile := compileField
			if t.Kind == TermRelated {
				compile = compileRelated
			}
			ft, err := compile(c, t)
			if err != nil {
				return nil, err
			}
			q.With = append(q.With, c.ID)
			q.Fields = append(q.Fields, ft)
			column(c.ID)
		}
	}
	if len(ex.Terms) == 0 {
		for i := range comps {
			column(comps[i].ID)
		}
	}
	return q, nil
}

// SuggestComponent names a component close to name, for error messages:
// " (did you mean Health?)", or the list of components when it is short.
func SuggestComponent(comps []protocol.Component, name string) string {
	var names []string
	for _, c := range comps {
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

// TargetField is the field a relation's target shows as in its values
// (Target; Parent in ChildOf), or "" if c is not a relation.
func TargetField(c *protocol.Component) string {
	for _, f := range c.Fields {
		if f.Kind == "entity" && (f.Name == "Target" || f.Name == "Parent") {
			return f.Name
		}
	}
	return ""
}

// compileRelated makes RELATION(ENTITY) the test of the relation's target
// field (Target; Parent in ChildOf) against the entity: one rule for the
// agent and for recordings, which both read the field.
func compileRelated(c *protocol.Component, t Term) (FieldTest, error) {
	if f := TargetField(c); f != "" {
		return compileField(c, Term{Kind: TermField, Component: t.Component, Path: f, Op: "==", Value: protocol.FloatValue(float64(t.Entity)), Col: t.Col})
	}
	return FieldTest{}, &QueryError{Col: t.Col, Msg: fmt.Sprintf("%s is not a relation: %s(ENTITY) asks for the entities whose relation points at ENTITY", t.Component, t.Component)}
}

func compileField(c *protocol.Component, t Term) (FieldTest, error) {
	ft := FieldTest{Component: c.ID, Term: t, Fixed: true}
	fail := func(format string, args ...any) (FieldTest, error) {
		return ft, &QueryError{Col: t.Col, Msg: fmt.Sprintf("%s.%s: ", t.Component, t.Path) + fmt.Sprintf(format, args...)}
	}
	fields := c.Fields
	var leaf *protocol.FieldSchema
	typeName := c.Short
	for part := range strings.SplitSeq(t.Path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if leaf != nil && leaf.Kind != "struct" {
			return fail("%s has no fields", leaf.Type)
		}
		if leaf != nil {
			fields = leaf.Fields
		}
		var f *protocol.FieldSchema
		for i := range fields {
			if fields[i].Name == name {
				f = &fields[i]
			}
		}
		if f == nil {
			return fail("no field %s in %s", name, typeName)
		}
		ft.Steps = append(ft.Steps, PathStep{Name: name, Index: -1})
		ft.Offset += f.Offset
		leaf, typeName = f, f.Type
		for rest != "" {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return fail("missing ]")
			}
			i, err := strconv.Atoi(rest[:end])
			if err != nil || i < 0 {
				return fail("index %q is not a whole number", rest[:end])
			}
			if (leaf.Kind != "array" && leaf.Kind != "slice") || leaf.Elem == nil {
				return fail("%s cannot be indexed", leaf.Type)
			}
			if leaf.Kind == "array" && i >= leaf.Len {
				return fail("index %d is past the end of %s", i, leaf.Type)
			}
			if leaf.Kind == "slice" {
				ft.Fixed = false
			}
			ft.Steps = append(ft.Steps, PathStep{Index: i})
			ft.Offset += i * leaf.Elem.Size
			leaf = leaf.Elem
			typeName = leaf.Type
			rest = strings.TrimPrefix(rest[end+1:], "[")
		}
	}
	ft.Leaf = leaf
	kind := leafKind(leaf.Kind)
	mismatch := func(what string) (FieldTest, error) {
		return ft, &QueryError{Col: t.Col, Msg: fmt.Sprintf("%s.%s is a %s, compared with %s", t.Component, t.Path, leaf.Type, what)}
	}
	switch {
	case t.Value.Kind() == protocol.KindString && kind != "string":
		return mismatch("a string")
	case t.Value.Kind() == protocol.KindFloat && kind != "number":
		return mismatch("a number")
	case t.Value.Kind() == protocol.KindBool && kind != "bool":
		return mismatch("true or false")
	}
	return ft, nil
}

func leafKind(k string) string {
	switch k {
	case "int", "uint", "float", "entity": // a handle compares as its number
		return "number"
	}
	return k
}

// HoldsValue tests the term on a component's value in wire form.
func (ft *FieldTest) HoldsValue(v protocol.Value) bool {
	for _, s := range ft.Steps {
		if s.Index >= 0 {
			if (v.Kind() != protocol.KindList) || s.Index >= v.Len() {
				return false
			}
			v = v.Index(s.Index)
			continue
		}
		var ok bool
		if v, ok = v.Get(s.Name); !ok {
			return false
		}
	}
	return ft.Term.Holds(v)
}

// HoldsRaw tests the term on a component's value as memory (see
// RawValue); false when the path does not sit at a fixed offset.
func (ft *FieldTest) HoldsRaw(b []byte) bool {
	if !ft.Fixed {
		return false
	}
	return ft.Term.Holds(protocol.RawField(ft.Leaf, b, ft.Offset, 0))
}

// SortKey is a compiled sort: a field of a component, ascending or not.
type SortKey struct {
	Field FieldTest // the field; its Term holds no comparison
	Desc  bool
}

// CompileSort resolves a sort expression, "Component.Field[.Field...]"
// for ascending or "-Component.Field" for descending, against comps. The
// field must be a number, a string, a bool or an entity.
func CompileSort(expr string, comps []protocol.Component) (*SortKey, error) {
	k := &SortKey{}
	src := strings.TrimSpace(expr)
	if rest, ok := strings.CutPrefix(src, "-"); ok {
		k.Desc, src = true, rest
	}
	name, path, ok := strings.Cut(src, ".")
	if !ok || name == "" || path == "" {
		return nil, &QueryError{Col: 1, Msg: fmt.Sprintf("sort by a field, like Energy.Value or -Energy.Value, not %q", expr)}
	}
	var c *protocol.Component
	for i := range comps {
		if comps[i].Short == name {
			c = &comps[i]
		}
	}
	if c == nil {
		return nil, &QueryError{Col: 1, Msg: fmt.Sprintf("sort: no component named %s%s", name, SuggestComponent(comps, name))}
	}
	ft, err := compileField(c, Term{Kind: TermField, Component: name, Path: path, Col: 1})
	if err != nil {
		return nil, err
	}
	if kind := leafKind(ft.Leaf.Kind); kind != "number" && kind != "string" && kind != "bool" {
		return nil, &QueryError{Col: 1, Msg: fmt.Sprintf("sort: %s.%s is a %s: sort by a number, string or bool", name, path, ft.Leaf.Type)}
	}
	k.Field = ft
	return k, nil
}

// Less orders two values of the sort's field (numbers, strings, bools;
// a missing value sorts last either way is the caller's to decide).
func (k *SortKey) Less(a, b protocol.Value) bool {
	if k.Desc {
		a, b = b, a
	}
	if x, ok := a.Number(); ok {
		y, _ := b.Number()
		return x < y
	}
	if a.Kind() == protocol.KindBool {
		return !a.Bool() && b.Bool()
	}
	return a.Str() < b.Str()
}

// Compare orders two rows by the sort field: rows without it (has false)
// last, whichever the direction; equal keys compare 0 (a stable sort keeps
// the world's order for them).
func (k *SortKey) Compare(a protocol.Value, aHas bool, b protocol.Value, bHas bool) int {
	switch {
	case aHas != bHas:
		if aHas {
			return -1
		}
		return 1
	case !aHas:
		return 0
	case k.Less(a, b):
		return -1
	case k.Less(b, a):
		return 1
	}
	return 0
}

// Of returns the sort field of a component's value, and whether it has it.
func (k *SortKey) Of(v protocol.Value) (protocol.Value, bool) {
	for _, s := range k.Field.Steps {
		if s.Index >= 0 {
			if v.Kind() != protocol.KindList || s.Index >= v.Len() {
				return protocol.Nil(), false
			}
			v = v.Index(s.Index)
			continue
		}
		var ok bool
		if v, ok = v.Get(s.Name); !ok {
			return protocol.Nil(), false
		}
	}
	return v, true
}
