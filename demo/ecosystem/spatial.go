package ecosystem

import (
	"runtime"
	"slices"
	"sync"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// spatial is a hash of the herbivores and predators by cell, rebuilt each
// frame, so hunting and fleeing look at neighbours, not everyone.
type spatial struct {
	cells int
	herb  bucket
	pred  bucket
	fled  []int32 // per herbivore, in query order: the predator it flees, its place in pred.items, or -1 (fleeSearch)
}

// bucket holds animals sorted by cell, each cell's in the order a query
// yields them. It is filled from two runs of the query, one counting and
// one placing, so no gathered copy of the animals is kept beside it: 24
// bytes an animal (its item, and its slot in query order), where a
// gathered copy costs 20 more.
type bucket struct {
	start []int32 // cell -> first index in items; len cells*cells+1
	items []item
	slots []uint32 // in query order, each animal's entity slot (Entity.Index): which animal the k-th is
}

type item struct {
	e    ecs.Entity
	x, y float32
	i    int32 // its place in the query order
}

// fill sorts the animals q yields into cells. An animal's cell is computed
// again to place it, rather than kept: that is 4 bytes an animal less.
func (b *bucket) fill(cells int, q *ecs.Query2[Position, Velocity]) {
	n := cells * cells
	if len(b.start) != n+1 {
		b.start = make([]int32, n+1)
	}
	clear(b.start)
	count := 0
	for it := q.Iter(); it.Next(); count++ {
		p, _ := it.Get()
		b.start[cellAt(p.X, p.Y, cells)+1]++
	}
	for c := 1; c <= n; c++ {
		b.start[c] += b.start[c-1]
	}
	b.items = slices.Grow(b.items[:0], count)[:count]
	b.slots = slices.Grow(b.slots[:0], count)[:count]
	// Placing advances each cell's start to its end, which is the next
	// cell's start: shifted back by one cell after, they are starts again.
	k := 0
	for it := q.Iter(); it.Next() && k < count; k++ {
		p, _ := it.Get()
		c := cellAt(p.X, p.Y, cells)
		e := it.Entity()
		b.items[b.start[c]] = item{e, p.X, p.Y, int32(k)}
		b.slots[k] = e.Index()
		b.start[c]++
	}
	copy(b.start[1:], b.start[:n])
	b.start[0] = 0
}

// cellAt is the index of the cell a point is in.
func cellAt(x, y float32, cells int) int {
	return cellOf(y, cellSize, cells)*cells + cellOf(x, cellSize, cells)
}

// fleeing is what fleeSearch found for the k-th herbivore of the query
// order, e: the predator it flees (nil if none in reach), and whether the
// index holds e there (if not, the herbivores changed since it was built).
// The slot alone tells: the index is built and read within one frame,
// and no slot is freed and used again within a frame.
func (sp *spatial) fleeing(k int, e ecs.Entity) (from *item, indexed bool) {
	if k >= len(sp.herb.slots) || k >= len(sp.fled) || sp.herb.slots[k] != e.Index() {
		return nil, false
	}
	if o := sp.fled[k]; o >= 0 {
		return &sp.pred.items[o], true
	}
	return nil, true
}

// fleeSearch finds, for every herbivore, the nearest predator in fleeing
// reach, as nearest would, cell by cell: the predators around a cell are
// found once for all the herbivores in it, and memory is read in order,
// where asking nearest herbivore by herbivore (in table order, all over the
// map) misses the cache at each one. The cells are shared out among the
// cores; each herbivore is in one cell, so each result is written once.
func (s *Sim) fleeSearch() {
	sp := &s.space
	n := len(sp.herb.items)
	sp.fled = slices.Grow(sp.fled[:0], n)[:n]
	workers := max(min(runtime.GOMAXPROCS(0), n/4096), 1)
	var wg sync.WaitGroup
	for k := range workers { // rows of cells, a share each
		wg.Go(func() { s.fleeRows(k*sp.cells/workers, (k+1)*sp.cells/workers) })
	}
	wg.Wait()
}

// fleeRows is fleeSearch over the cells of rows [from, to). It walks rows
// and columns, so no cell's neighbours cost a division.
func (s *Sim) fleeRows(from, to int) {
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
			lo, hi := herb.start[c], herb.start[c+1]
			if lo == hi {
				continue
			}
			var runs [9][2]int32 // the predators around the cell: runs of pred.items
			nr := 0
			for _, row := range rows {
				if cx > 0 && cx < cells-1 { // three neighbouring cells are one run of items
					runs[nr] = [2]int32{pred.start[row+cx-1], pred.start[row+cx+2]}
					nr++
					continue
				}
				for ox := -1; ox <= 1; ox++ {
					n := row + wrap(cx+ox)
					runs[nr] = [2]int32{pred.start[n], pred.start[n+1]}
					nr++
				}
			}
			for h := lo; h < hi; h++ {
				hx, hy := herb.items[h].x, herb.items[h].y
				hit, best := int32(-1), r2
				for _, run := range runs[:nr] {
					for o := run[0]; o < run[1]; o++ {
						p := &pred.items[o]
						dx, dy := torusDelta(hx, p.x, s.side), torusDelta(hy, p.y, s.side)
						if d := dx*dx + dy*dy; d < best {
							best, hit = d, o
						}
					}
				}
				sp.fled[herb.items[h].i] = hit
			}
		}
	}
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
