package protocol

import (
	"math"
	"slices"
	"testing"
)

// TestGridBinsByTheOneRule: a point in the box counts in the cell it
// falls in (the top row holds the greatest y; the edges count in their
// edge cells), one outside it or not a number in none; with no box, the
// points' bounds.
func TestGridBinsByTheOneRule(t *testing.T) {
	g := Grid{Box: []float64{0, 0, 4, 2}, W: 4, H: 2}
	for _, p := range [][2]float64{{0, 0}, {4, 2}, {3.9, 1.9}, {1.5, 0.5}, {-0.1, 1}, {2, 2.1}, {math.NaN(), 1}, {1, math.Inf(1)}} {
		g.Add(p[0], p[1])
	}
	var m Points
	g.Bin(&m)
	want := []uint32{
		0, 0, 0, 2, // y in [1, 2]: (4, 2) and (3.9, 1.9)
		1, 1, 0, 0, // y in [0, 1): (0, 0) and (1.5, 0.5)
	}
	if m.Total != 6 || !slices.Equal(m.Counts, want) || m.Check() != nil {
		t.Fatalf("total %d, counts %v (%v), want %v", m.Total, m.Counts, m.Check(), want)
	}
	g = Grid{W: 2, H: 2}
	g.Add(-1, -1)
	g.Add(1, 3)
	g.Bin(&m)
	if !slices.Equal(m.Box, []float64{-1, -1, 1, 3}) || !slices.Equal(m.Counts, []uint32{0, 1, 1, 0}) {
		t.Fatalf("bounds %v, counts %v", m.Box, m.Counts)
	}
	for _, bad := range []Points{{W: 2, H: 2, Box: []float64{0, 0, 1, 1}, Counts: []uint32{1}}, {W: 1, H: 1, Box: []float64{0, 0, 0, 1}, Counts: []uint32{1}}, {W: 1 << 9, H: 1 << 9}} {
		if bad.Check() == nil {
			t.Errorf("%dx%d with %d counts over %v passed", bad.W, bad.H, len(bad.Counts), bad.Box)
		}
	}
}

// TestPointsForAGamesOwnComponents: the map starts with the game's own
// position: a component holding numeric X and Y, one named like a
// position first, in a struct field too; the demo's Position when no
// component has both.
func TestPointsForAGamesOwnComponents(t *testing.T) {
	num := func(name string) FieldSchema { return FieldSchema{Name: name, Kind: "float", Type: "float64", Size: 8} }
	vec := FieldSchema{Name: "Pos", Kind: "struct", Fields: []FieldSchema{num("X"), num("Y")}}
	for _, c := range []struct {
		comps []Component
		want  string
	}{
		{[]Component{{Short: "Velocity", Fields: []FieldSchema{num("X"), num("Y")}}, {Short: "Object", Fields: []FieldSchema{num("X"), num("Y"), num("W")}}},
			"Velocity.X Velocity.Y"}, // no name says position: the first
		{[]Component{{Short: "Velocity", Fields: []FieldSchema{num("X"), num("Y")}}, {Short: "Pos", Fields: []FieldSchema{num("X"), num("Y")}}},
			"Pos.X Pos.Y"},
		{[]Component{{Short: "Body", Fields: []FieldSchema{vec, {Name: "Mass", Kind: "float"}}}},
			"Body.Pos.X Body.Pos.Y"},
		{[]Component{{Short: "Health", Fields: []FieldSchema{num("HP")}}, {Short: "Half", Fields: []FieldSchema{num("X"), {Name: "Y", Kind: "string"}}}},
			DefaultPoints},
	} {
		if got := PointsFor(c.comps); got != c.want {
			t.Errorf("%+v: %q, want %q", c.comps, got, c.want)
		}
		if _, err := ParsePoints(c.want); err != nil {
			t.Errorf("%q does not parse: %v", c.want, err)
		}
	}
}
