package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The query language, one parser for agent and client alike:
//
//	Position Velocity !Frozen ?Health changed(Position) added(Enemy)
//	childof(42v3) HomeHive(0v1) Health.HP<10 Name.Value~"orc"
//
// Terms are separated by spaces and all must hold: NAME requires a
// component, !NAME excludes it, ?NAME lists it without requiring it,
// changed(NAME) and added(NAME) keep entities whose component changed or
// was added since the subscriber's previous frame, childof(ENTITY) keeps
// children of an entity, RELATION(ENTITY) the entities whose relation
// points at ENTITY (RELATION(*): at any target, as RELATION does; !RELATION:
// at none), and NAME.PATH OP VALUE compares a field: < <= > >= == != on
// numbers, == != and ~ (contains) on strings, == != on booleans.

// TermKind says what a query term asks.
type TermKind uint8

// Query term kinds.
const (
	TermWith TermKind = iota
	TermWithout
	TermOptional
	TermChanged
	TermAdded
	TermChildOf
	TermField
	TermRelated // RELATION(ENTITY): the relation points at Entity
)

// Term is one parsed query term.
type Term struct {
	Kind      TermKind
	Component string            // every kind but TermChildOf
	Entity    protocol.EntityID // TermChildOf, TermRelated
	Path      string            // TermField: the field path after the component, "HP" or "Pos.X"
	Op        string            // TermField: < <= > >= == != ~
	Value     protocol.Value    // TermField: a float, string or bool
	Col       int               // 1-based column where the term starts
}

// Expr is a parsed query expression.
type Expr struct {
	Source string
	Terms  []Term
}

// QueryError is a parse error at a column (1-based).
type QueryError struct {
	Col int
	Msg string
}

func (e *QueryError) Error() string { return fmt.Sprintf("query: column %d: %s", e.Col, e.Msg) }

// ParseQuery parses a query expression. An empty expression matches every
// entity.
func ParseQuery(s string) (*Expr, error) {
	p := &queryParser{src: s}
	ex := &Expr{Source: s}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return ex, nil
		}
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		ex.Terms = append(ex.Terms, t)
	}
}

type queryParser struct {
	src string
	pos int
}

func (p *queryParser) errf(pos int, format string, args ...any) error {
	return &QueryError{Col: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *queryParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }

func (p *queryParser) ident(what string) (string, error) {
	start := p.pos
	if p.pos >= len(p.src) || !isIdentStart(p.src[p.pos]) {
		return "", p.errf(p.pos, "expected %s", what)
	}
	for p.pos < len(p.src) && isIdentPart(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos], nil
}

func (p *queryParser) term() (Term, error) {
	start := p.pos
	t := Term{Col: start + 1}
	if kind, ok := map[byte]TermKind{'!': TermWithout, '?': TermOptional}[p.src[p.pos]]; ok {
		prefix := p.src[p.pos]
		p.pos++
		name, err := p.ident(fmt.Sprintf("a component name after '%c'", prefix))
		t.Kind, t.Component = kind, name
		return t, err
	}
	name, err := p.ident("a component name, !NAME, ?NAME, changed(NAME), added(NAME), childof(ENTITY), RELATION(ENTITY) or NAME.FIELD<VALUE")
	if err != nil {
		return t, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == '(' {
		return p.call(t, name)
	}
	t.Component = name
	if p.pos >= len(p.src) || p.src[p.pos] != '.' {
		if p.pos < len(p.src) && p.src[p.pos] != ' ' && p.src[p.pos] != '\t' {
			return t, p.errf(p.pos, "unexpected %q after %s", p.src[p.pos], name)
		}
		t.Kind = TermWith
		return t, nil
	}
	t.Kind = TermField
	p.pos++ // '.'
	pathStart := p.pos
	for p.pos < len(p.src) && (isIdentPart(p.src[p.pos]) || strings.IndexByte(".[]", p.src[p.pos]) >= 0) {
		p.pos++
	}
	t.Path = p.src[pathStart:p.pos]
	if t.Path == "" || !isIdentStart(t.Path[0]) || strings.HasSuffix(t.Path, ".") {
		return t, p.errf(pathStart, "expected a field name after %s.", name)
	}
	opStart := p.pos
	for _, op := range []string{"<=", ">=", "==", "!=", "<", ">", "~"} {
		if strings.HasPrefix(p.src[p.pos:], op) {
			t.Op = op
			p.pos += len(op)
			break
		}
	}
	if t.Op == "" {
		return t, p.errf(opStart, "expected a comparison (< <= > >= == != ~) after %s.%s", name, t.Path)
	}
	valStart := p.pos
	t.Value, err = p.literal()
	if err != nil {
		return t, err
	}
	switch {
	case t.Value.Kind() == protocol.KindString && (t.Op != "==" && t.Op != "!=" && t.Op != "~"):
		return t, p.errf(opStart, "%s compares numbers; use ==, != or ~ with a string", t.Op)
	case t.Value.Kind() == protocol.KindBool && t.Op != "==" && t.Op != "!=":
		return t, p.errf(opStart, "%s does not compare true or false; use == or !=", t.Op)
	case t.Value.Kind() == protocol.KindFloat && t.Op == "~":
		return t, p.errf(valStart, "~ wants a string in quotes")
	}
	return t, nil
}

func (p *queryParser) call(t Term, fn string) (Term, error) {
	p.pos++ // '('
	p.skipSpace()
	switch fn {
	case "changed", "added":
		name, err := p.ident("a component name in " + fn + "(...)")
		if err != nil {
			return t, err
		}
		t.Component = name
		t.Kind = TermChanged
		if fn == "added" {
			t.Kind = TermAdded
		}
	default: // childof(ENTITY), or a relation's NAME(ENTITY) or NAME(*)
		start := p.pos
		for p.pos < len(p.src) && p.src[p.pos] != ')' && p.src[p.pos] != ' ' {
			p.pos++
		}
		arg := p.src[start:p.pos]
		if fn != "childof" && arg == "*" {
			t.Kind, t.Component = TermWith, fn
			break
		}
		e, err := protocol.ParseEntityID(arg)
		if err != nil || e == 0 {
			if fn == "childof" {
				return t, p.errf(start, "expected an entity like 42v3 in childof(...)")
			}
			return t, p.errf(start, "expected a target like 42v3, or *, in %s(...): a relation's holders of that target (changed, added and childof are the other functions)", fn)
		}
		t.Kind, t.Entity = TermChildOf, e
		if fn != "childof" {
			t.Kind, t.Component = TermRelated, fn
		}
	}
	p.skipSpace()
	if p.pos >= len(p.src) || p.src[p.pos] != ')' {
		return t, p.errf(p.pos, "expected ) to close %s(", fn)
	}
	p.pos++
	return t, nil
}

func (p *queryParser) literal() (protocol.Value, error) {
	if p.pos >= len(p.src) {
		return protocol.Value{}, p.errf(p.pos, "expected a value: a number, \"string\", true or false")
	}
	start := p.pos
	if p.src[p.pos] == '"' {
		p.pos++
		var b strings.Builder
		for p.pos < len(p.src) && p.src[p.pos] != '"' {
			if p.src[p.pos] == '\\' && p.pos+1 < len(p.src) {
				p.pos++
			}
			b.WriteByte(p.src[p.pos])
			p.pos++
		}
		if p.pos >= len(p.src) {
			return protocol.Value{}, p.errf(start, "string is not closed: add a \"")
		}
		p.pos++
		return protocol.StringValue(b.String()), nil
	}
	for p.pos < len(p.src) && p.src[p.pos] != ' ' && p.src[p.pos] != '\t' {
		p.pos++
	}
	word := p.src[start:p.pos]
	switch word {
	case "true":
		return protocol.BoolValue(true), nil
	case "false":
		return protocol.BoolValue(false), nil
	}
	f, err := strconv.ParseFloat(word, 64)
	if err != nil {
		return protocol.Value{}, p.errf(start, "expected a number, \"string\", true or false, not %q", word)
	}
	return protocol.FloatValue(f), nil
}

// String prints the expression in canonical form; parsing it again gives
// the same terms.
func (e *Expr) String() string {
	parts := make([]string, len(e.Terms))
	for i, t := range e.Terms {
		parts[i] = t.String()
	}
	return strings.Join(parts, " ")
}

// String prints the term as written in the language.
func (t Term) String() string {
	switch t.Kind {
	case TermWithout:
		return "!" + t.Component
	case TermOptional:
		return "?" + t.Component
	case TermChanged:
		return "changed(" + t.Component + ")"
	case TermAdded:
		return "added(" + t.Component + ")"
	case TermChildOf:
		return "childof(" + t.Entity.String() + ")"
	case TermRelated:
		return t.Component + "(" + t.Entity.String() + ")"
	case TermField:
		if t.Value.Kind() == protocol.KindString {
			r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
			return t.Component + "." + t.Path + t.Op + `"` + r.Replace(t.Value.Str()) + `"`
		}
		return t.Component + "." + t.Path + t.Op + t.Value.String()
	}
	return t.Component
}

// Holds reports whether a field term holds for the field's value v: the
// term's comparison, on numbers, strings or bools. Clients evaluating a
// query on recorded data use it, and so does the agent.
func (t Term) Holds(v protocol.Value) bool {
	switch t.Value.Kind() {
	case protocol.KindString:
		s, w := v.Str(), t.Value.Str()
		switch t.Op {
		case "==":
			return s == w
		case "!=":
			return s != w
		case "~":
			return strings.Contains(s, w)
		}
		return false
	case protocol.KindBool:
		return v.Kind() == protocol.KindBool && (v.Bool() == t.Value.Bool()) == (t.Op == "==")
	}
	x, ok := v.Number()
	y, _ := t.Value.Number()
	if !ok {
		return false
	}
	if v.IsFloat32() { // as Go compares a float32 with a constant
		y = float64(float32(y))
	}
	switch t.Op {
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	case ">=":
		return x >= y
	case "==":
		return x == y
	case "!=":
		return x != y
	}
	return false
}
