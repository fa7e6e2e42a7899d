package inspector

import "runtime"

// The clients' writer goroutines do the agent's heavy lifting off the game
// goroutine: sorting and filtering copies, building pages and their
// deltas, encoding. One goroutine per client would let eight clients with
// sorted pages of 10,000 rows take eight goroutines' worth of the CPU, and
// the scheduler shares it evenly: on two cores the game got a fifth of its
// time. workSlots bounds how many do that work at once, whatever the number
// of clients: half the cores, at least one. Small work (a summary, a
// reply, a page of a few rows) takes no slot, so a well-behaved client's
// frames keep their pace while greedy ones queue for the slots; writing to
// a socket holds none, so a stuck client never holds up the others.

// workSlots is how many writers may build and encode at once.
func workSlots() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// lightWork is the most bytes a message may be estimated at to be built
// and encoded without a slot, if its build is not a heavy one.
const lightWork = 64 << 10

// working runs fn, holding one of the agent's work slots if the work is
// heavy (a copy to filter or sort) or big (its estimated size).
func (a *Agent) working(heavy bool, size int64, fn func()) {
	if heavy || size > lightWork {
		a.work <- struct{}{}
		defer func() { <-a.work }()
	}
	fn()
}
