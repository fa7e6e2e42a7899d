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
	sp := c.spare
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.drop()
	sp.gen++
	gen := sp.gen
	time.AfterFunc(spareLife, func() { // holds the buffers alone: a world let go of is not kept for them
		sp.mu.Lock()
		defer sp.mu.Unlock()
		if sp.gen == gen {
			sp.drop()
		}
	})
	for ti := range cp.Tables {
		t := &cp.Tables[ti]
		keepSpare(&sp.ents, t.Entities)
		for ci := range t.Columns {
			cc := &t.Columns[ci]
			keepSpare(&sp.bytes, cc.Raw)
			keepSpare(&sp.rows, cc.Changed)
			keepSpare(&sp.rows, cc.Added)
		}
	}
	keepSpare(&sp.gens, cp.Alloc.Gens)
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
// or stream every frame (or every few) reuses it; the in-memory ring,
// a capture a second, does not hold it between (at a million entities
// that is 60 MB live the game would keep for one allocation a second).
// (A variable so a test can keep a timer pending.)
var spareLife = 500 * time.Millisecond

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

// Release lets go of the recycled memory now, for a capturer that
// captures no more (a recording that ended, a snapshot taken): otherwise
// it waits out spareLife. A capture after it takes new memory. Safe to
// call from any goroutine.
func (c *Capturer) Release() {
	c.spare.mu.Lock()
	defer c.spare.mu.Unlock()
	c.spare.gen++ // a timer set before has nothing left to drop
	c.spare.drop()
}
