package ecs

import (
	"math"
	"strings"
	"testing"
)

// Gauge has one float field that opts in to NaN and ±Inf and one that does not.
type Gauge struct {
	Reading float64 `ecs:"nonfinite"`
	Scale   float32
	Label   string
	Target  Entity
}

// TestSetFieldRefusesUnsafeValues: what a hostile or careless client can
// send is refused with a short message, and nothing changes; opted-in fields
// take non-finite floats.
func TestSetFieldRefusesUnsafeValues(t *testing.T) {
	w := NewWorld()
	gauges := NewMap[Gauge](w)
	e := w.Spawn()
	must(t, gauges.Add(e, Gauge{Scale: 1, Label: "ok"}))
	gone := w.Spawn()
	must(t, w.Despawn(gone))
	future := EntityOf(e.Index(), e.Generation()+5)
	huge := strings.Repeat("x", 1<<20)
	refused := []struct {
		path  string
		value any
		want  string
	}{
		{"Gauge.Scale", math.NaN(), "refuses NaN"},
		{"Gauge.Scale", math.Inf(1), "refuses +Inf"},
		{"Gauge.Scale", "-Inf", "refuses -Inf"},
		{"Gauge.Scale", "NaN", "refuses NaN"},
		{"Gauge.Scale", 1e39, "does not fit"},
		{"Gauge.Label", "bad \xff utf8", "valid UTF-8"},
		{"Gauge.Target", future.String(), "was never issued"},
		{"Gauge.Target", uint64(1<<40 | 99999), "was never issued"},
		{"Gauge.Label", []any{huge, huge}, "a list of 2 items"},
		{"Gauge.Scale", huge, "(1048576 bytes)"},
	}
	for _, tc := range refused {
		err := w.Inspect().SetField(e, tc.path, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetField(%s) = %v, want an error with %q", tc.path, err, tc.want)
			continue
		}
		if len(err.Error()) > 300 {
			t.Errorf("SetField(%s) error is %d bytes long: it quotes too much", tc.path, len(err.Error()))
		}
	}
	if g := gauges.Read(e); g.Scale != 1 || g.Label != "ok" || !g.Target.IsZero() {
		t.Fatalf("refused values changed the component: %+v", *g)
	}
	for _, ok := range []struct {
		path  string
		value any
	}{
		{"Gauge.Reading", math.NaN()},
		{"Gauge.Reading", "Inf"},
		{"Gauge.Scale", 3e38},
		{"Gauge.Target", gone.String()}, // stale, but issued: a dangling reference is a real game state
		{"Gauge.Target", "0v0"},
	} {
		must(t, w.Inspect().SetField(e, ok.path, ok.value))
	}
	if g := gauges.Read(e); !math.IsInf(g.Reading, 1) || g.Scale != 3e38 {
		t.Fatalf("accepted values did not land: %+v", *g)
	}
	// NewValue (what Spawn and AddComponent over the wire use) checks the same way.
	info, _ := w.Inspect().ComponentByName("Gauge")
	if _, err := w.Inspect().NewValue(info.ID, map[string]any{"Scale": math.NaN()}); err == nil {
		t.Error("NewValue took NaN into a field that did not opt in")
	}
	if _, err := w.Inspect().NewValue(info.ID, map[string]any{"Reading": math.NaN()}); err != nil {
		t.Errorf("NewValue refused NaN into an opted-in field: %v", err)
	}
}
