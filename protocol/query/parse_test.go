package query

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestParseQueryFullExample(t *testing.T) {
	src := `Position Velocity !Frozen ?Health changed(Position) added(Enemy) childof(42v3) Health.HP<10 Name.Value~"orc"`
	ex, err := ParseQuery(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind TermKind
		comp string
	}{
		{TermWith, "Position"}, {TermWith, "Velocity"}, {TermWithout, "Frozen"}, {TermOptional, "Health"},
		{TermChanged, "Position"}, {TermAdded, "Enemy"}, {TermChildOf, ""}, {TermField, "Health"}, {TermField, "Name"},
	}
	if len(ex.Terms) != len(want) {
		t.Fatalf("terms = %+v", ex.Terms)
	}
	for i, w := range want {
		if ex.Terms[i].Kind != w.kind || ex.Terms[i].Component != w.comp {
			t.Errorf("term %d = %+v, want %v %s", i, ex.Terms[i], w.kind, w.comp)
		}
	}
	if e := ex.Terms[6].Entity; e != protocol.MakeEntityID(42, 3) {
		t.Errorf("childof = %v", e)
	}
	hp := ex.Terms[7]
	if hp.Path != "HP" || hp.Op != "<" || hp.Value.Float() != 10 || hp.Col != strings.Index(src, "Health.HP")+1 {
		t.Errorf("HP term = %+v", hp)
	}
	if name := ex.Terms[8]; name.Op != "~" || name.Value.Str() != "orc" {
		t.Errorf("name term = %+v", name)
	}
	if ex.String() != src {
		t.Errorf("String() = %q", ex.String())
	}
	if e, _ := ParseQuery("  "); len(e.Terms) != 0 {
		t.Error("blank query has terms")
	}
}

func TestParseQueryErrorsPointAtTheColumn(t *testing.T) {
	cases := []struct {
		src  string
		col  int
		want string
	}{
		{"Position !", 11, "component name after '!'"},
		{"Position ?3", 11, "component name after '?'"},
		{"Health.HP", 10, "expected a comparison"},
		{"Health.HP<", 11, "expected a value"},
		{"Health.HP<abc", 11, `not "abc"`},
		{`Name.Value<"orc"`, 11, "use ==, != or ~ with a string"},
		{"Health.HP~3", 11, "~ wants a string"},
		{`Name.Value=="orc`, 13, "string is not closed"},
		{"changed(Position", 17, "expected ) to close changed("},
		{"childof(abc)", 9, "entity like 42v3"},
		{"nearby(3)", 8, "expected a target like 42v3, or *, in nearby"},
		{"Position,Velocity", 9, "unexpected ','"},
		{"Health.", 8, "field name after Health."},
		{"Alive.On<true", 9, "does not compare true or false"},
		{"3D", 1, "expected a component name"},
	}
	for _, tc := range cases {
		_, err := ParseQuery(tc.src)
		qe, ok := err.(*QueryError)
		if !ok || qe.Col != tc.col || !strings.Contains(qe.Msg, tc.want) {
			t.Errorf("ParseQuery(%q) = %v; want column %d, %q", tc.src, err, tc.col, tc.want)
		}
	}
}

// FuzzParseQuery: any input parses or fails with a column inside the input
// (or just past it); what parses prints to a form that parses the same.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{`Position Velocity !Frozen ?Health changed(Position) added(Enemy) childof(42v3) Health.HP<10 Name.Value~"orc"`,
		`A.B[2].C>=-1e3`, `X.Y=="a\"b"`, `a!`, `childof(`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ex, err := ParseQuery(s)
		if err != nil {
			qe, ok := err.(*QueryError)
			if !ok || qe.Col < 1 || qe.Col > len(s)+1 {
				t.Fatalf("%q: error %v", s, err)
			}
			return
		}
		again, err := ParseQuery(ex.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, ex.String(), err)
		}
		if again.String() != ex.String() || len(again.Terms) != len(ex.Terms) {
			t.Fatalf("%q: %q then %q", s, ex.String(), again.String())
		}
	})
}

func TestTermHolds(t *testing.T) {
	cases := []struct {
		expr string
		v    protocol.Value
		want bool
	}{
		{"A.x<10", protocol.IntValue(3), true},
		{"A.x<10", protocol.FloatValue(10), false},
		{"A.x>=2.5", protocol.FloatValue(2.5), true},
		{"A.x!=1", protocol.UintValue(1), false},
		{`A.s~"rc"`, protocol.StringValue("orc"), true},
		{`A.s=="orc"`, protocol.StringValue("elf"), false},
		{`A.s!="orc"`, protocol.StringValue("elf"), true},
		{"A.b==true", protocol.BoolValue(true), true},
		{"A.b!=true", protocol.BoolValue(true), false},
		{"A.x<10", protocol.StringValue("3"), false}, // a string is not a number
		// A float32 compares with the number as Go compares it with a
		// constant: rounded to float32 first.
		{"A.x==0.1", protocol.Float32Value(0.1), true},
		{"A.x<=797.30426", protocol.Float32Value(797.30426), true},
		{"A.x<797.30426", protocol.Float32Value(797.30426), false},
		{"A.x==0.1", protocol.FloatValue(float64(float32(0.1))), false},
	}
	for _, c := range cases {
		ex, err := ParseQuery(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := ex.Terms[0].Holds(c.v); got != c.want {
			t.Errorf("%s on %v = %v", c.expr, c.v, got)
		}
	}
}

// FuzzParseEntityID: any text gives a handle that prints back to itself,
// or an error.
func FuzzParseEntityID(f *testing.F) {
	for _, s := range []string{"42v3", "0v1", "v", "4294967295v4294967295", "-1v2", "1v-2", "１v1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := protocol.ParseEntityID(s)
		if err != nil {
			return
		}
		again, err := protocol.ParseEntityID(e.String())
		if err != nil || again != e {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, e, e.String(), again, err)
		}
	})
}

// TestRelationTerms: RELATION(ENTITY) asks for the holders of a target,
// RELATION(*) for any target (RELATION alone); compiled, it tests the
// relation's target field, so the agent and a recording read one rule; a
// component that is no relation is refused.
func TestRelationTerms(t *testing.T) {
	ex, err := ParseQuery("HomeHive(0v1) Worker(*)")
	if err != nil {
		t.Fatal(err)
	}
	if got := ex.String(); got != "HomeHive(0v1) Worker" {
		t.Fatalf("printed back as %q", got)
	}
	comps := []protocol.Component{
		{ID: 3, Short: "HomeHive", Fields: []protocol.FieldSchema{{Name: "Target", Kind: "entity"}, {Name: "Trips", Kind: "int"}}},
		{ID: 4, Short: "Worker"},
	}
	q, err := CompileExpr(ex, comps)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Fields) != 1 || q.Fields[0].Term.Path != "Target" || len(q.With) != 2 {
		t.Fatalf("compiled: %+v", q)
	}
	hive := protocol.MakeEntityID(0, 1)
	bee := func(target protocol.EntityID) protocol.Value {
		return protocol.MapValue(protocol.Field{Name: "Target", Value: protocol.UintValue(uint64(target))}, protocol.Field{Name: "Trips", Value: protocol.IntValue(3)})
	}
	if !q.Fields[0].HoldsValue(bee(hive)) || q.Fields[0].HoldsValue(bee(protocol.MakeEntityID(2, 1))) {
		t.Fatal("the target test does not tell hive 0v1 from 2v1")
	}
	if _, err := CompileQuery("Worker(1v1)", comps); err == nil || !strings.Contains(err.Error(), "Worker is not a relation") {
		t.Fatalf("a relation term on a plain component: %v", err)
	}
}
