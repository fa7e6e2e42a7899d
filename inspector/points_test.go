package inspector

import (
	"math"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestPointsBinEveryMatchOnce: a points subscription bins the matches of
// its query by two fields into a grid of the size asked: each entity in
// the cell its place falls in, those outside the area in none, marked
// entities given with their places; bad subscriptions are refused.
func TestPointsBinEveryMatchOnce(t *testing.T) {
	g := startGame(t, Options{})
	var marked ecs.Entity
	g.on(func() {
		// A 10x10 square of still entities, one in each unit cell of
		// [0,10)x[0,10), and one far outside it.
		spawn := ecs.NewMap2[Position, Health](g.w)
		for i := range 100 {
			e := spawn.Spawn(Position{X: float64(i%10) + 0.5, Y: float64(i/10) + 0.5}, Health{HP: i})
			if i == 37 {
				marked = e
			}
		}
		spawn.Spawn(Position{X: 500, Y: 500}, Health{HP: -1})
	})
	c := dial(t, g, protocol.Hello{})
	id := c.request(&protocol.Subscribe{What: protocol.SubPoints, Query: "Position.X Position.Y !Velocity", Box: []float64{0, 0, 10, 10}, Dots: []int{5, 2}, Marks: []protocol.EntityID{wire(marked)}})
	p := c.await(func(m protocol.Message) bool { p, ok := m.(*protocol.Points); return ok && p.Sub == id }).(*protocol.Points)
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	if p.Total != 101 || p.W != 5 || p.H != 2 {
		t.Fatalf("total %d, a %dx%d grid", p.Total, p.W, p.H)
	}
	for i, n := range p.Counts { // each cell 2 wide and 5 high: 10 entities
		if n != 10 {
			t.Fatalf("cell %d holds %d, want 10: %v", i, n, p.Counts)
		}
	}
	if len(p.Marks) != 1 || p.Marks[0].Entity != wire(marked) || p.Marks[0].X != 7.5 || p.Marks[0].Y != 3.5 {
		t.Fatalf("marks: %+v", p.Marks)
	}

	// Without an area: the points' bounds; one point alone, a unit area
	// around it, the point in its middle.
	id = c.request(&protocol.Subscribe{What: protocol.SubPoints, Query: "Position.X Position.Y Health.HP<0", Dots: []int{4, 4}})
	p = c.await(func(m protocol.Message) bool { p, ok := m.(*protocol.Points); return ok && p.Sub == id }).(*protocol.Points)
	if p.Total != 1 || p.Counts[1*4+2] != 1 || p.Box[0] != 499.5 || p.Box[3] != 500.5 {
		t.Fatalf("the far entity alone: total %d, counts %v, box %v", p.Total, p.Counts, p.Box)
	}

	for _, bad := range []protocol.Subscribe{
		{Query: "Position.X", Dots: []int{4, 4}},
		{Query: "Position.X Position.Y", Dots: []int{4}},
		{Query: "Position.X Position.Y", Dots: []int{1 << 9, 1 << 9}},
		{Query: "Position.X Position.Y", Dots: []int{4, 1 << 62}}, // 4 x 2^62 wraps to 0
		{Query: "Position.X Position.Y", Dots: []int{4, 4}, Box: []float64{0, 0, math.Inf(1), 1}},
		{Query: "Position.X Position.Y", Dots: []int{4, 4}, Box: []float64{1, 0, 0, 1}},
		{Query: "Position.X Position.Y", Dots: []int{4, 4}, Box: []float64{0, 0, 1}},
		{Query: "Position.X Nope.Y", Dots: []int{4, 4}},
		{Query: "Position.X Position.Y", Dots: []int{4, 4}, Marks: make([]protocol.EntityID, protocol.MaxPointsMarks+1)},
	} {
		bad.What = protocol.SubPoints
		if r := c.reply(&bad); r.OK {
			t.Errorf("%+v was taken", bad)
		}
	}
}
