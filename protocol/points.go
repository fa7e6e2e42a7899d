package protocol

import (
	"fmt"
	"math"
	"strings"
)

// The spatial view's stream: where the entities a query selects are, as
// a density grid of two numeric fields (a position's X and Y by default),
// binned by the agent so a frame's bytes depend on the grid's size, never
// on how many entities there are.

// SubPoints subscribes to a density grid: Subscribe's q is a points
// expression (ParsePoints), bx the area to bin (x0, y0, x1, y1; none: the
// points' own bounds), dt the grid's width and height in cells (at most
// MaxPointsCells in all), mk entities whose places the answer gives.
const SubPoints = "points"

// TypePoints tags a Points.
const TypePoints Type = 79

// MaxPointsCells bounds a density grid's cells; MaxPointsMarks the
// entities marked in one.
const (
	MaxPointsCells = 1 << 16
	MaxPointsMarks = 32
)

// Points is one density grid of a points subscription.
type Points struct {
	Sub   uint32 `msgpack:"sub"`
	Tick  uint64 `msgpack:"t"`
	Total int    `msgpack:"tot"` // entities the query matched that have both fields
	// Box is the area binned: x0, y0, x1, y1 (x0 < x1, y0 < y1), the
	// subscription's, or the points' bounds when it gave none.
	Box []float64 `msgpack:"bx"`
	W   int       `msgpack:"w"`
	H   int       `msgpack:"h"`
	// Counts are the entities in each cell, W*H of them, row by row from
	// the top (the greatest y) down; a point on the box's edge counts in
	// its edge cell, one outside it in none.
	Counts []uint32 `msgpack:"c"`
	Marks  []Mark   `msgpack:"mk,omitempty"` // the marked entities that have both fields
}

// Mark is a marked entity's place.
type Mark struct {
	Entity EntityID `msgpack:"e"`
	X      float64  `msgpack:"x"`
	Y      float64  `msgpack:"y"`
}

// Type implements Message.
func (*Points) Type() Type { return TypePoints }

// Check reports whether the grid is whole: a box of four finite numbers in
// order, W*H counts within MaxPointsCells. A client checks a Points it
// received before it draws it.
func (m *Points) Check() error {
	if m.W <= 0 || m.H <= 0 || m.W > MaxPointsCells || m.H > MaxPointsCells || m.W*m.H > MaxPointsCells {
		return fmt.Errorf("protocol: a %dx%d density grid", m.W, m.H)
	}
	if len(m.Counts) != m.W*m.H {
		return fmt.Errorf("protocol: a %dx%d density grid with %d counts", m.W, m.H, len(m.Counts))
	}
	return CheckBox(m.Box)
}

// CheckBox reports whether box is an area: x0, y0, x1, y1, finite, x0 <
// x1 and y0 < y1.
func CheckBox(box []float64) error {
	if len(box) != 4 {
		return fmt.Errorf("protocol: an area is x0, y0, x1, y1, not %d numbers", len(box))
	}
	for _, v := range box {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("protocol: an area of %v", box)
		}
	}
	if !(box[0] < box[2]) || !(box[1] < box[3]) {
		return fmt.Errorf("protocol: the area %v is empty: x0 < x1 and y0 < y1", box)
	}
	return nil
}

// PointsSpec is a parsed points expression.
type PointsSpec struct {
	X, Y  string // Component.Field each
	Query string // the entities drawn ("" for all that have both fields)
}

// DefaultPoints is the points expression a spatial view starts with
// when the game's components say nothing better (PointsFor).
const DefaultPoints = "Position.X Position.Y"

// PointsFor is the points expression a spatial view of a game with these
// components starts with: the X and Y of the component that
// holds both as numbers, directly or in a struct field (Transform.Pos.X),
// preferring one named like a position (Position, Pos, Transform,
// Location, Body); DefaultPoints when none does.
func PointsFor(components []Component) string {
	best, bestScore := "", -1
	for _, c := range components {
		for _, at := range xyPaths(c.Short, c.Fields, 0) {
			score := 0
			name := strings.ToLower(at)
			for i, hint := range []string{"position", "pos", "transform", "location", "body"} {
				if strings.Contains(name, hint) {
					score = 10 - i
					break
				}
			}
			if score > bestScore {
				best, bestScore = at, score
			}
		}
	}
	if best == "" {
		return DefaultPoints
	}
	return best + ".X " + best + ".Y"
}

// xyPaths are the paths, from at, of the structs in fields (and fields'
// own, at depth 0) holding numeric X and Y, named as written.
func xyPaths(at string, fields []FieldSchema, depth int) []string {
	var out []string
	x, y := false, false
	for _, f := range fields {
		numeric := f.Kind == "int" || f.Kind == "uint" || f.Kind == "float"
		switch {
		case numeric && f.Name == "X":
			x = true
		case numeric && f.Name == "Y":
			y = true
		case f.Kind == "struct" && depth < 2:
			out = append(out, xyPaths(at+"."+f.Name, f.Fields, depth+1)...)
		}
	}
	if x && y {
		out = append([]string{at}, out...)
	}
	return out
}

// ParsePoints parses a points expression: two numeric fields, then, if
// you like, a query:
//
//	Position.X Position.Y
//	Position.X Position.Y Herbivore Energy.Value<20
func ParsePoints(expr string) (PointsSpec, error) {
	words := strings.Fields(expr)
	if len(words) < 2 {
		return PointsSpec{}, fmt.Errorf("points are two fields and a query if you like: %s Herbivore", DefaultPoints)
	}
	for _, w := range words[:2] {
		if c, f, ok := strings.Cut(w, "."); !ok || c == "" || f == "" {
			return PointsSpec{}, fmt.Errorf("%q is not a Component.Field: %s", w, DefaultPoints)
		}
	}
	return PointsSpec{X: words[0], Y: words[1], Query: strings.Join(words[2:], " ")}, nil
}

// Over is the query the points are drawn from: the spec's, with the
// fields' components (the entities that have both).
func (s PointsSpec) Over() string {
	comps := []string{}
	for _, f := range []string{s.X, s.Y} {
		c, _, _ := strings.Cut(f, ".")
		if !strings.Contains(" "+s.Query+" ", " "+c+" ") && (len(comps) == 0 || comps[0] != c) {
			comps = append(comps, c)
		}
	}
	return strings.TrimSpace(strings.Join(comps, " ") + " " + s.Query)
}

// Grid bins points into a density grid: the one rule for every place
// that draws them (the agent live, a recording in review).
type Grid struct {
	Box    []float64 // nil: the points' own bounds, found by Bin
	W, H   int
	xs, ys []float64
}

// Add adds a point; NaN and infinite ones are passed over.
func (g *Grid) Add(x, y float64) {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return
	}
	g.xs, g.ys = append(g.xs, x), append(g.ys, y)
}

// Bin fills m's Total, Box, W, H and Counts from the points added.
func (g *Grid) Bin(m *Points) {
	box := g.Box
	if box == nil {
		box = boundsOf(g.xs, g.ys)
	}
	m.Total, m.Box, m.W, m.H = len(g.xs), box, g.W, g.H
	m.Counts = make([]uint32, g.W*g.H)
	sx, sy := float64(g.W)/(box[2]-box[0]), float64(g.H)/(box[3]-box[1])
	for i, x := range g.xs {
		y := g.ys[i]
		if x < box[0] || x > box[2] || y < box[1] || y > box[3] {
			continue
		}
		col := min(int((x-box[0])*sx), g.W-1)
		row := g.H - 1 - min(int((y-box[1])*sy), g.H-1)
		m.Counts[row*g.W+col]++
	}
}

// boundsOf is the points' bounds, a unit area around a single place.
func boundsOf(xs, ys []float64) []float64 {
	if len(xs) == 0 {
		return []float64{0, 0, 1, 1}
	}
	b := []float64{xs[0], ys[0], xs[0], ys[0]}
	for i, x := range xs {
		b[0], b[2] = min(b[0], x), max(b[2], x)
		b[1], b[3] = min(b[1], ys[i]), max(b[3], ys[i])
	}
	for _, k := range []int{0, 1} {
		if b[k+2]-b[k] < 1e-9*max(1, math.Abs(b[k])) {
			b[k], b[k+2] = b[k]-0.5, b[k+2]+0.5
		}
	}
	return b
}

// CellBox is the area of the grid's cell at (col, row), row 0 at the top.
func (m *Points) CellBox(col, row int) []float64 {
	w, h := (m.Box[2]-m.Box[0])/float64(m.W), (m.Box[3]-m.Box[1])/float64(m.H)
	x0 := m.Box[0] + float64(col)*w
	y1 := m.Box[3] - float64(row)*h
	return []float64{x0, y1 - h, x0 + w, y1}
}
