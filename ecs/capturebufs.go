package ecs

import (
	"sync"
	"time"
)

// Recycle hands a capture's memory back to its capturer once the caller
// is done with every slice in it (values, row lists, entities): the next
// capture copies into it. A million-row capture is tens of megabytes, and
// memory the runtime just returned to the system costs a page fault per
// page on the game goroutine when touched again. The capturer keeps one
// capture's memory, the newest handed back, and lets it go when no
// capture came for it within spareLife. Safe to call from any goroutine.
func (c *Capturer) Recycle(cp *Capture) {
	c.spare.mu.Lock()
	defer c.spare.mu.Unlock()
	c.spare.drop()
	c.spare.gen++
	gen := c.spare.gen
	time.AfterFunc(spareLife, func() {
		c.spare.mu.Lock()
		defer c.spare.mu.Unlock()
		if c.spare.gen == gen {
			c.spare.drop()
		}
	})
	for ti := range cp.Tables {
		t := &cp.Tables[ti]
		keepSpare(&c.spare.ents, t.Entities)
		for ci := range t.Columns {
			cc := &t.Columns[ci]
			keepSpare(&c.spare.bytes, cc.Raw)
			keepSpare(&c.spare.rows, cc.Changed)
			keepSpare(&c.spare.rows, cc.Added)
		}
	}
	keepSpare(&c.spare.gens, cp.Alloc.Gens)
	*cp = Capture{}
}

// spareBufs holds recycled capture memory, a few buffers of each kind.
type spareBufs struct {
	mu    sync.Mutex
	gen   uint64 // Recycle calls: a timer drops the buffers only of the one that set it
	bytes [][]byte
	rows  [][]int32
	ents  [][]Entity
	gens  [][]uint32
}

// spareLife is how long recycled memory waits for a capture: a recording
// every frame reuses it, the in-memory one a second or more apart does
// not hold it.
const spareLife = 2 * time.Second

func (s *spareBufs) drop() {
	clear(s.bytes)
	clear(s.rows)
	clear(s.ents)
	clear(s.gens)
	s.bytes, s.rows, s.ents, s.gens = s.bytes[:0], s.rows[:0], s.ents[:0], s.gens[:0]
}

// maxSpare bounds the buffers kept of each kind: a world's tables'
// columns, about.
const maxSpare = 64

// keepSpare keeps b, unless it is small or the list is full.
func keepSpare[T any](list *[][]T, b []T) {
	if cap(b) < 1024 || len(*list) >= maxSpare {
		return
	}
	*list = append(*list, b[:0])
}

// takeSpare returns an empty buffer with room for n from the list (the
// smallest that fits), or a new one.
func takeSpare[T any](mu *sync.Mutex, list *[][]T, n int) []T {
	if n >= 1024 {
		mu.Lock()
		best := -1
		for i, b := range *list {
			if cap(b) >= n && (best < 0 || cap(b) < cap((*list)[best])) {
				best = i
			}
		}
		if best >= 0 {
			b := (*list)[best]
			last := len(*list) - 1
			(*list)[best], (*list)[last] = (*list)[last], nil
			*list = (*list)[:last]
			mu.Unlock()
			return b[:0]
		}
		mu.Unlock()
	}
	return make([]T, 0, n)
}
