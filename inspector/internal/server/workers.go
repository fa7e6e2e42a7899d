package server

import (
	"math"
	"runtime"
	"sync"
	"time"
)

// The clients' writer goroutines do the agent's heavy lifting off the game
// goroutine: sorting and filtering copies, building pages and their
// deltas, encoding. One goroutine per client would let eight clients with
// sorted pages of 10,000 rows take eight goroutines' worth of the CPU, and
// the scheduler shares it evenly: on two cores the game got a fifth of its
// time. workSlots bounds how many do that work at once, whatever the number
// of clients: half the cores, at least one. Small work (a summary, a
// reply, a page of a few rows) from a client that has done little work
// lately takes no slot, so a well-behaved client's frames keep their pace
// while greedy ones (big work, or many small frames) queue for the slots;
// writing to a socket holds none, so a stuck client never holds up the
// others.

// workSlots is how many writers may build and encode at once.
func workSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// lightWork is the most bytes a message may be estimated at to be built
// and encoded without a slot, if its build is not a heavy one.
const lightWork = 64 << 10

// busyWork is how much building and encoding a client may have done
// lately (decaying with workMemory) and still skip the slots: a UI's
// summaries and pages take well under a millisecond a frame; many
// subscriptions of small frames add up past it.
const (
	busyWork   = 5 * time.Millisecond
	workMemory = 100 * time.Millisecond
)

// working runs fn, holding one of the agent's work slots if the work is
// heavy (a copy to filter or sort), big (its estimated size), or the
// client has done much work lately. It returns false, without running fn,
// if the client is dropped first. Only the client's writer calls it.
func (c *Client) working(heavy bool, size int64, fn func()) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	now := time.Now()
	c.recentWork *= math.Exp(-float64(now.Sub(c.workAt)) / float64(workMemory))
	c.workAt = now
	busy := c.recentWork > float64(busyWork)
	if heavy || size > lightWork || busy {
		c.s.waiting.Add(1)
		select {
		case c.s.work <- struct{}{}:
			c.s.waiting.Add(-1)
		case <-c.done:
			c.s.waiting.Add(-1)
			return false
		}
		defer func() { <-c.s.work }()
	}
	now = time.Now() // the work, not the wait for a slot
	fn()
	took := time.Since(now)
	c.recentWork += float64(took)
	// Busy as of now, this work counted: a client that waited long for
	// its slot has let its past work decay, and must not skip the pause
	// for it.
	if c.recentWork > float64(busyWork) && c.s.waiting.Load() > 0 {
		// A busy client that others wait behind keeps its slot idle for
		// busyPause times its work: however many busy clients queue for
		// the slots, they use at most a quarter of them, and the game
		// keeps its cores. Alone (one client recording a big world, say),
		// it keeps its pace.
		t := time.NewTimer(busyPause * took)
		select {
		case <-t.C:
		case <-c.done:
			t.Stop()
		}
	}
	return true
}

// busyPause is how long a busy client's slot stays idle, in multiples of
// the work it just did.
const busyPause = 3

// HoldWork takes every work slot until release is called: heavy work
// waits meanwhile. For tests of an agent whose slots are all busy.
func (s *Server) HoldWork() (release func()) {
	for range cap(s.work) {
		s.work <- struct{}{}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for range cap(s.work) {
				<-s.work
			}
		})
	}
}
