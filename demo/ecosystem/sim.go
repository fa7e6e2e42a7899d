package ecosystem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

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

// spatial is a hash of the herbivores and predators by cell, rebuilt each
// frame, so hunting and fleeing look at neighbours, not everyone.
type spatial struct {
	cells  int
	herb   bucket
	pred   bucket
	hs, ps []item   // the frame's herbivores and predators, in query order
	fled   []int32  // per herbivore, in query order: the predator it flees, its place in ps, or -1 (fleeSearch)
	near   [][]item // fleeSearch's scratch, per worker: the predators around a cell
}

type bucket struct {
	start []int32 // cell -> first index in items; len cells+1
	items []item
	count []int32
}

type item struct {
	e    ecs.Entity
	x, y float32
	i    int32 // its place in the query order the items were gathered in
}

// build sorts items into cells, a counting sort over parts of the items
// at once (each part counted and placed by its own goroutine, the prefix
// sums between): a cell holds its items in their order in items, as a
// sort by one goroutine would place them. An item's cell is computed
// again to place it, rather than kept: that is 4 bytes an item less.
func (b *bucket) build(cells int, items []item, parts int) {
	n := cells * cells
	parts = max(min(parts, len(items)/4096), 1)
	if len(b.start) != n+1 || len(b.count) != parts*n {
		b.start = make([]int32, n+1)
		b.count = make([]int32, parts*n)
	}
	if cap(b.items) < len(items) {
		b.items = make([]item, len(items))
	}
	b.items = b.items[:len(items)]
	part := func(p int) (lo, hi int, count []int32) {
		return p * len(items) / parts, (p + 1) * len(items) / parts, b.count[p*n : (p+1)*n]
	}
	inParts := func(f func(p int)) {
		var wg sync.WaitGroup
		for p := 1; p < parts; p++ {
			wg.Go(func() { f(p) })
		}
		f(0)
		wg.Wait()
	}
	inParts(func(p int) {
		lo, hi, count := part(p)
		clear(count)
		for k := lo; k < hi; k++ {
			count[itemCell(&items[k], cells)]++
		}
	})
	var sum int32 // each part's count becomes where its next item in the cell goes
	for c := range n {
		b.start[c] = sum
		for p := range parts {
			k := p*n + c
			b.count[k], sum = sum, sum+b.count[k]
		}
	}
	b.start[n] = sum
	inParts(func(p int) {
		lo, hi, next := part(p)
		for k := lo; k < hi; k++ {
			c := itemCell(&items[k], cells)
			b.items[next[c]] = items[k]
			next[c]++
		}
	})
}

// itemCell is the index of the cell an item is in.
func itemCell(it *item, cells int) int {
	return cellOf(it.y, cellSize, cells)*cells + cellOf(it.x, cellSize, cells)
}

// fleeSearch finds, for every herbivore, the nearest predator in fleeing
// reach, as nearest would, cell by cell: the predators around a cell are
// gathered once for all the herbivores in it, and memory is read in order,
// where asking nearest herbivore by herbivore (in table order, all over the
// map) misses the cache at each one. The cells are shared out among the
// cores; each herbivore is in one cell, so each result is written once. The
// results are in the herbivores' query order.
func (s *Sim) fleeSearch() {
	sp := &s.space
	sp.fled = slices.Grow(sp.fled[:0], len(sp.herb.items))[:len(sp.herb.items)]
	workers := max(min(runtime.GOMAXPROCS(0), len(sp.herb.items)/4096), 1)
	for len(sp.near) < workers {
		sp.near = append(sp.near, nil)
	}
	var wg sync.WaitGroup
	for k := range workers { // rows of cells, a share each
		wg.Go(func() { sp.near[k] = s.fleeRows(k*sp.cells/workers, (k+1)*sp.cells/workers, sp.near[k]) })
	}
	wg.Wait()
}

// fleeRows is fleeSearch over the cells of rows [from, to); near is
// scratch. It walks rows and columns, so no cell's neighbours cost a
// division.
func (s *Sim) fleeRows(from, to int, near []item) []item {
	sp := &s.space
	cells, herb, pred := sp.cells, &sp.herb, &sp.pred
	r2 := float32(fleeRadius * fleeRadius)
	wrap := func(v int) int { // v in [-1, cells]
		switch {
		case v < 0:
			return v + cells
		case v >= cells:
			return v - cells
		}
		return v
	}
	for cy := from; cy < to; cy++ {
		rows := [3]int{wrap(cy-1) * cells, cy * cells, wrap(cy+1) * cells} // the cells in nearest's order
		for cx := range cells {
			c := cy*cells + cx
			hs := herb.items[herb.start[c]:herb.start[c+1]]
			if len(hs) == 0 {
				continue
			}
			near = near[:0]
			for _, row := range rows {
				if cx > 0 && cx < cells-1 { // three neighbouring cells are one run of items
					near = append(near, pred.items[pred.start[row+cx-1]:pred.start[row+cx+2]]...)
					continue
				}
				for ox := -1; ox <= 1; ox++ {
					n := row + wrap(cx+ox)
					near = append(near, pred.items[pred.start[n]:pred.start[n+1]]...)
				}
			}
			for _, h := range hs {
				hit, best := int32(-1), r2
				for _, o := range near {
					dx, dy := torusDelta(h.x, o.x, s.side), torusDelta(h.y, o.y, s.side)
					if d := dx*dx + dy*dy; d < best {
						best, hit = d, o.i
					}
				}
				sp.fled[h.i] = hit
			}
		}
	}
	return near
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

// nearest finds the closest item of b within radius of (x, y), among the
// 3x3 cells around it, skipping those in skip: the entity, its offset and
// the squared distance (the entity is zero if none is in reach). The cells
// are walked here, not through a callback: fleeing asks this of every
// herbivore every frame.
func (s *Sim) nearest(b *bucket, x, y, radius float32, skip map[ecs.Entity]bool) (e ecs.Entity, dx, dy, d2 float32) {
	d2 = radius * radius
	cells := s.space.cells
	cx, cy := cellOf(x, cellSize, cells), cellOf(y, cellSize, cells)
	for oy := -1; oy <= 1; oy++ {
		row := ((cy + oy + cells) % cells) * cells
		for ox := -1; ox <= 1; ox++ {
			c := row + (cx+ox+cells)%cells
			for _, o := range b.items[b.start[c]:b.start[c+1]] {
				ddx, ddy := torusDelta(x, o.x, s.side), torusDelta(y, o.y, s.side)
				if d := ddx*ddx + ddy*ddy; d < d2 && (skip == nil || !skip[o.e]) {
					d2, e, dx, dy = d, o.e, ddx, ddy
				}
			}
		}
	}
	return e, dx, dy, d2
}
