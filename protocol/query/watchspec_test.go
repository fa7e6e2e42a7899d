package query

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestParseWatch(t *testing.T) {
	e := protocol.MakeEntityID(42, 3)
	good := map[string]WatchSpec{
		"Energy.Value<0":           {Kind: "value", Query: "Energy.Value<0"},
		"42v3 Energy.Value<0":      {Kind: "value", Query: "Energy.Value<0", Entity: e},
		"spawn":                    {Kind: "spawn"},
		"spawn Predator !Fleeing":  {Kind: "spawn", Query: "Predator !Fleeing"},
		"despawn 42v3":             {Kind: "despawn", Entity: e},
		"despawn FlowerPatch":      {Kind: "despawn", Query: "FlowerPatch"},
		"add Fleeing":              {Kind: "add", Component: "Fleeing"},
		"remove Energy from 42v3":  {Kind: "remove", Component: "Energy", Entity: e},
		"system hunt > 2ms":        {Kind: "system", System: "hunt", Over: 2 * time.Millisecond},
		"frame >20ms":              {Kind: "frame", Over: 20 * time.Millisecond},
		"Position.X>1000 Predator": {Kind: "value", Query: "Position.X>1000 Predator"},
	}
	for expr, want := range good {
		got, err := ParseWatch(expr)
		// The query comes parsed with it, the parse the query's own.
		if want.Query != "" {
			if got.Expr == nil || got.Expr.String() != want.Query {
				t.Errorf("ParseWatch(%q): the query parsed as %v, want %q", expr, got.Expr, want.Query)
			}
			got.Expr = nil
		}
		if err != nil || got != want {
			t.Errorf("ParseWatch(%q) = %+v, %v; want %+v", expr, got, err, want)
		}
	}
	bad := map[string]string{
		"":                   "an empty watchpoint",
		"Predator":           "needs a field test",
		"add":                "takes a component",
		"add Fleeing at 1v1": "takes a component",
		"system hunt":        "compare with >",
		"frame > soon":       "not a duration",
		"frame > -2ms":       "not a duration",
		"Energy.Value<<0":    "query",
	}
	for expr, want := range bad {
		if _, err := ParseWatch(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseWatch(%q): %v, want an error saying %q", expr, err, want)
		}
	}
}

func FuzzParseWatch(f *testing.F) {
	for _, s := range []string{"Energy.Value<0", "42v3 HP.HP<=0", "despawn 1v1", "add X to 2v2", "system a > 1ms", "frame > 3s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseWatch(s)
		if err == nil && spec.Kind == "" {
			t.Fatalf("%q parsed to no kind", s)
		}
	})
}

// TestHoldsRawAgreesWithTheValue: a test on memory says what the term says
// of the value decoded whole, for each numeric kind and operator.
func TestHoldsRawAgreesWithTheValue(t *testing.T) {
	comp := protocol.Component{ID: 1, Short: "C", Fields: []protocol.FieldSchema{
		{Name: "F", Kind: "float", Type: "float32", Offset: 0, Size: 4},
		{Name: "D", Kind: "float", Type: "float64", Offset: 8, Size: 8},
		{Name: "I", Kind: "int", Type: "int32", Offset: 16, Size: 4},
		{Name: "U", Kind: "uint", Type: "uint64", Offset: 24, Size: 8},
	}}
	mem := make([]byte, 32)
	put := func(f32 float32, f64 float64, i int32, u uint64) {
		binary.LittleEndian.PutUint32(mem[0:], math.Float32bits(f32))
		binary.LittleEndian.PutUint64(mem[8:], math.Float64bits(f64))
		binary.LittleEndian.PutUint32(mem[16:], uint32(i))
		binary.LittleEndian.PutUint64(mem[24:], u)
	}
	for _, lit := range []string{"3", "0.1"} {
		for _, op := range []string{"<", "<=", ">", ">=", "==", "!="} {
			for _, field := range []string{"F", "D", "I", "U"} {
				expr := "C." + field + op + lit
				q, err := CompileQuery(expr, []protocol.Component{comp})
				if err != nil {
					t.Fatal(err)
				}
				ft := &q.Fields[0]
				general := func(b []byte) bool {
					v, ok := (&SortKey{Field: *ft}).Of(protocol.RawValue(comp.Fields, b))
					return ok && ft.Term.Holds(v)
				}
				for _, v := range []float64{-7, 0.1, 2, 3, 4, 1e9} {
					put(float32(v), v, int32(v), uint64(max(v, 0)))
					if ft.HoldsRaw(mem) != general(mem) {
						t.Errorf("%s at %v: bound %v, general %v", expr, v, ft.HoldsRaw(mem), general(mem))
					}
				}
				if ft.HoldsRaw(mem[:4]) && field != "F" {
					t.Errorf("%s held on memory too short", expr)
				}
			}
		}
	}
	// A float32 set to 0.1 is 0.1 to a query, as it is to Go.
	q, err := CompileQuery("C.F==0.1", []protocol.Component{comp})
	if err != nil {
		t.Fatal(err)
	}
	put(0.1, 0.1, 0, 0)
	if !q.Fields[0].HoldsRaw(mem) {
		t.Errorf("C.F==0.1 does not hold for a float32 0.1")
	}
}

func TestParseSkippedWatch(t *testing.T) {
	for expr, system := range map[string]string{"skipped": "", "skipped hive decisions": "hive decisions"} {
		spec, err := ParseWatch(expr)
		if err != nil || spec.Kind != "skipped" || spec.System != system {
			t.Fatalf("%q: %+v, %v", expr, spec, err)
		}
	}
}

func TestParseDanglingWatch(t *testing.T) {
	for expr, in := range map[string]string{"dangling": "", "dangling Grid": "Grid"} {
		spec, err := ParseWatch(expr)
		if err != nil || spec.Kind != "dangling" || spec.In != in {
			t.Fatalf("%q: %+v, %v", expr, spec, err)
		}
	}
	if _, err := ParseWatch("dangling Grid Hunts"); err == nil {
		t.Error("dangling with two names parsed")
	}
}
