package protocol

import (
	"testing"
)

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
