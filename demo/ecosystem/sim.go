package ecosystem

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// Sim is the ecosystem: a world, its schedule, and the handles its systems
// share. Step advances it one fixed timestep.
type Sim struct {
	World    *ecs.World
	Schedule *ecs.Schedule
	Dt       float32 // seconds per step
	initial  int
	side     float32

	pos   *ecs.Map[Position]
	vel   *ecs.Map[Velocity]
	spawn *ecs.Map4[Position, Velocity, Energy, Age]
	flee  *ecs.Map[Fleeing]
	space spatial
	bug   string // a deliberate bug, for trying the debugger (SetBug)
}

// Bugs are the deliberate bugs SetBug knows, with what each does.
var Bugs = map[string]string{
	"starve": "now and then the grazing system writes a large negative Energy to one grazer",
}

// SetBug turns on a deliberate bug by name (see Bugs), for trying the
// debugger on a game that goes wrong: "" turns it off.
func (s *Sim) SetBug(name string) error {
	if _, ok := Bugs[name]; !ok && name != "" {
		return fmt.Errorf("no bug named %q: the demo has starve", name)
	}
	s.bug = name
	return nil
}

// Tuning, per second unless said.
const (
	density        = 100 // world area per animal at the start
	cellSize       = 20  // grass cell and spatial hash cell, world units
	grassGrowth    = 0.15
	grazeRate      = 0.6
	grassEnergy    = 80
	herbMetabolism = 2.5
	predMetabolism = 1.2
	preyEnergy     = 70
	herbSpeed      = 6
	fleeSpeed      = 14
	predSpeed      = 9
	huntSpeed      = 15
	fleeRadius     = 25
	huntRadius     = 38
	catchRadius    = 4
	herbMaxAge     = 90 * 60 // frames
	predMaxAge     = 120 * 60
	packSize       = 5
)

// New builds an ecosystem of about n animals (90% herbivores, the rest
// predators in packs) from seed.
func New(n int, seed uint64) *Sim {
	w := ecs.NewWorld()
	side := float32(math.Sqrt(float64(n * density)))
	cells := max(int(side/cellSize), 1)
	s := &Sim{World: w, Dt: 1.0 / 60, initial: n, side: float32(cells * cellSize)}
	s.pos, s.vel = ecs.NewMap[Position](w), ecs.NewMap[Velocity](w)
	s.flee = ecs.NewMap[Fleeing](w)
	s.spawn = ecs.NewMap4[Position, Velocity, Energy, Age](w)
	herbTag, predTag := ecs.NewMap[Herbivore](w), ecs.NewMap[Predator](w)
	ecs.ComponentIDOf[ecs.ChildOf](w)
	ecs.SetResource(w, Clock{})
	ecs.SetResource(w, Seed{Value: seed})
	grass := make([]float32, cells*cells)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range grass {
		grass[i] = rng.Float32()
	}
	ecs.SetResource(w, Grid{Cells: cells, Size: cellSize, Grass: grass})
	ecs.SetResource(w, Stats{})
	ecs.EventsOf[Born](w)
	ecs.EventsOf[Eaten](w)
	ecs.EventsOf[Died](w)

	preds := n / 10
	var leader ecs.Entity
	for i := range n {
		p := Position{rng.Float32() * s.side, rng.Float32() * s.side}
		a := rng.Float64() * 2 * math.Pi
		e := s.spawn.Spawn(p, Velocity{float32(math.Cos(a)) * herbSpeed, float32(math.Sin(a)) * herbSpeed},
			Energy{30 + rng.Float32()*40}, Age{uint32(rng.IntN(herbMaxAge / 2))})
		if i < preds {
			_ = predTag.Add(e, Predator{})
			if i%packSize == 0 {
				leader = e
			} else {
				if pp := s.pos.Read(leader); pp != nil {
					*s.pos.Get(e) = Position{pp.X + rng.Float32()*10, pp.Y + rng.Float32()*10}
				}
				_ = w.SetParent(e, leader)
			}
		} else {
			_ = herbTag.Add(e, Herbivore{})
		}
	}
	s.build(seed)
	return s
}

// Step runs one frame: the schedule, then the world's tick.
func (s *Sim) Step() {
	s.Schedule.Run(s.World)
	_ = s.World.Tick()
}

// wrap keeps a coordinate inside the world (a torus).
func (s *Sim) wrap(v float32) float32 {
	if v >= 0 && v < s.side {
		return v
	}
	if v != v || math.IsInf(float64(v), 0) { // an edit put NaN or ±Inf here: start over at the edge
		return 0
	}
	m := float32(math.Mod(float64(v), float64(s.side)))
	if m < 0 {
		m += s.side
	}
	if m >= s.side || m < 0 { // rounding at the edges
		m = 0
	}
	return m
}

// cellOf is the grid cell, 0 to cells-1, of coordinate v with cells of
// size: any float, NaN and far-off values included, lands in the grid, so
// a value edited in from the inspector cannot index out of range.
func cellOf(v, size float32, cells int) int {
	f := v / size
	if !(f >= 0) { // negative or NaN
		return 0
	}
	if f >= float32(cells) {
		return cells - 1
	}
	return int(f)
}

// torusDelta is the shortest offset from a to b on a wrapped axis.
func torusDelta(a, b, side float32) float32 {
	d := b - a
	if d > side/2 {
		d -= side
	} else if d < -side/2 {
		d += side
	}
	return d
}
