package ecosystem

import (
	"fmt"
	"math"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// TestSurvivesHostileEdits: every value an inspector edit can put in a
// component (the agent refuses NaN and ±Inf in these fields; the extremes
// of float32 and of the integers are valid) leaves the simulation running,
// with every position back inside the world.
func TestSurvivesHostileEdits(t *testing.T) {
	extremes := []any{float32(math.MaxFloat32), -float32(math.MaxFloat32), 3e38, -3e38, 1e-45, -1, 0}
	fields := []string{"Position.X", "Position.Y", "Velocity.X", "Velocity.Y", "Energy.Value"}
	for _, path := range fields {
		for _, v := range extremes {
			t.Run(fmt.Sprintf("%s=%v", path, v), func(t *testing.T) {
				s := New(300, 3)
				var ents []ecs.Entity
				it := ecs.NewQuery1[Position](s.World).Iter()
				for it.Next() && len(ents) < 20 {
					ents = append(ents, it.Entity())
				}
				it.Close()
				edited := 0
				for _, e := range ents {
					if err := s.World.Inspect().SetField(e, path, v); err == nil {
						edited++
					}
				}
				if edited == 0 {
					t.Fatalf("no entity took %s=%v", path, v)
				}
				for range 30 {
					s.Step()
				}
				for p := range ecs.NewQuery1[Position](s.World).All() {
					if !(p.X >= 0 && p.X < s.side && p.Y >= 0 && p.Y < s.side) {
						t.Fatalf("a position left the world: %+v (side %v)", *p, s.side)
					}
				}
			})
		}
	}
	// NaN cannot come in over the wire, but a game's own bug can make one:
	// wrap and cellOf still land inside.
	s := New(10, 1)
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 3e38, -3e38} {
		if w := s.wrap(v); !(w >= 0 && w < s.side) {
			t.Errorf("wrap(%v) = %v", v, w)
		}
		if c := cellOf(v, 4, 10); c < 0 || c > 9 {
			t.Errorf("cellOf(%v) = %d", v, c)
		}
	}
}
