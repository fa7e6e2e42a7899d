package protocol

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseWatch(t *testing.T) {
	e := MakeEntityID(42, 3)
	good := map[string]WatchSpec{
		"Energy.Value<0":           {Kind: "value", Query: "Energy.Value<0"},
		"42v3 Energy.Value<0":      {Kind: "value", Query: "Energy.Value<0", Entity: e},
		"spawn":                    {Kind: "spawn"},
		"spawn Predator !Fleeing":  {Kind: "spawn", Query: "Predator !Fleeing"},
		"despawn 42v3":             {Kind: "despawn", Entity: e},
		"add Fleeing":              {Kind: "add", Component: "Fleeing"},
		"remove Energy from 42v3":  {Kind: "remove", Component: "Energy", Entity: e},
		"system hunt > 2ms":        {Kind: "system", System: "hunt", Over: 2 * time.Millisecond},
		"frame >20ms":              {Kind: "frame", Over: 20 * time.Millisecond},
		"Position.X>1000 Predator": {Kind: "value", Query: "Position.X>1000 Predator"},
	}
	for expr, want := range good {
		got, err := ParseWatch(expr)
		if err != nil || got != want {
			t.Errorf("ParseWatch(%q) = %+v, %v; want %+v", expr, got, err, want)
		}
	}
	bad := map[string]string{
		"":                   "an empty watchpoint",
		"Predator":           "needs a field test",
		"despawn x":          "not an entity",
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

// TestRawTestAgreesWithHoldsRaw: the fast test on memory says what the
// general one says, for each numeric kind and operator.
func TestRawTestAgreesWithHoldsRaw(t *testing.T) {
	comp := Component{ID: 1, Short: "C", Fields: []FieldSchema{
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
				q, err := CompileQuery(expr, []Component{comp})
				if err != nil {
					t.Fatal(err)
				}
				ft := &q.Fields[0]
				fast := ft.RawTest()
				if fast == nil {
					t.Fatalf("%s has no raw test", expr)
				}
				for _, v := range []float64{-7, 0.1, 2, 3, 4, 1e9} {
					put(float32(v), v, int32(v), uint64(max(v, 0)))
					if fast(mem) != ft.HoldsRaw(mem) {
						t.Errorf("%s at %v: fast %v, general %v", expr, v, fast(mem), ft.HoldsRaw(mem))
					}
				}
				if fast(mem[:4]) && field != "F" {
					t.Errorf("%s held on memory too short", expr)
				}
			}
		}
	}
	// A float32 set to 0.1 is 0.1 to a query, as it is to Go.
	q, err := CompileQuery("C.F==0.1", []Component{comp})
	if err != nil {
		t.Fatal(err)
	}
	put(0.1, 0.1, 0, 0)
	if !q.Fields[0].RawTest()(mem) || !q.Fields[0].HoldsRaw(mem) {
		t.Errorf("C.F==0.1 does not hold for a float32 0.1")
	}
}

// TestFrameFor: the frame that shows a tick, and what is said of it: in a
// recording at a rate, the state as of the frame before; in a recording of
// every frame, a tick between two frames is a gap, said as such.
func TestFrameFor(t *testing.T) {
	every := &Recording{Frames: []FrameInfo{{Tick: 10}, {Tick: 11}, {Tick: 12}, {Tick: 20}}}
	if _, _, err := every.FrameFor(15); err == nil || !strings.Contains(err.Error(), "no frame recorded for tick 15: the recording skipped ticks 13 to 19") {
		t.Errorf("a gap in a recording of every frame: %v", err)
	}
	if gaps, ticks := every.Gaps(); gaps != 1 || ticks != 7 {
		t.Errorf("Gaps() = %d, %d; want 1 gap of 7 ticks", gaps, ticks)
	}
	if i, note, err := every.FrameFor(99); err != nil || i != 3 || !strings.Contains(note, "state as of tick 20") {
		t.Errorf("past the end of a recording of every frame: %d %q %v", i, note, err)
	}
	rec := &Recording{Header: RecordingHeader{Hz: 10}, Frames: []FrameInfo{{Tick: 10}, {Tick: 12}, {Tick: 20}}}
	if gaps, _ := rec.Gaps(); gaps != 0 {
		t.Errorf("a recording at a rate has %d gaps", gaps)
	}
	for _, c := range []struct {
		tick  uint64
		frame int
		note  string
	}{{10, 0, ""}, {12, 1, ""}, {15, 1, "tick 15 was not recorded: state as of tick 12"}, {99, 2, "state as of tick 20"}} {
		i, note, err := rec.FrameFor(c.tick)
		if err != nil || i != c.frame || !strings.Contains(note, c.note) || (c.note == "") != (note == "") {
			t.Errorf("FrameFor(%d) = %d %q %v, want %d %q", c.tick, i, note, err, c.frame, c.note)
		}
	}
	if _, _, err := rec.FrameFor(9); err == nil || !strings.Contains(err.Error(), "before the recording starts") {
		t.Errorf("a tick before the recording: %v", err)
	}
}

func TestParseSeries(t *testing.T) {
	for _, c := range []struct {
		in   string
		want SeriesSpec
		bad  bool
	}{
		{in: "42v3 Energy.Value", want: SeriesSpec{Entity: MakeEntityID(42, 3), Field: "Energy.Value"}},
		{in: "count Herbivore Fleeing", want: SeriesSpec{Aggregate: "count", Query: "Herbivore Fleeing"}},
		{in: "count", want: SeriesSpec{Aggregate: "count"}},
		{in: "mean Energy.Value Herbivore", want: SeriesSpec{Aggregate: "mean", Field: "Energy.Value", Query: "Herbivore"}},
		{in: "max Position.X", want: SeriesSpec{Aggregate: "max", Field: "Position.X"}},
		{in: "", bad: true},
		{in: "42v3", bad: true},
		{in: "42v3 Energy", bad: true},
		{in: "median Energy.Value", bad: true},
		{in: "min", bad: true},
	} {
		got, err := ParseSeries(c.in)
		if c.bad != (err != nil) || !c.bad && got != c.want {
			t.Errorf("ParseSeries(%q) = %+v, %v", c.in, got, err)
		}
	}
}

// FuzzParseSeries: a series that parses prints back to an expression that
// parses to it again.
func FuzzParseSeries(f *testing.F) {
	for _, s := range []string{"42v3 Energy.Value", "count Herbivore", "mean Energy.Value Herbivore Energy.Value<3", "sum A.B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSeries(s)
		if err != nil {
			return
		}
		again, err := ParseSeries(spec.String())
		if err != nil || again != spec {
			t.Fatalf("%q parsed to %+v, printed %q, parsed again to %+v (%v)", s, spec, spec.String(), again, err)
		}
	})
}
