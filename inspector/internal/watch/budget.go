package watch

import (
	"fmt"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/budget"
)

// What value watchpoints may cost the game. A watchpoint's checks walk the
// rows of its tested components that were written, testing each; their
// cost in a frame is counted in row tests (the rows that hold the tested
// components, as the game may write them all, times the watchpoint's
// terms, weighted by how the rows are tested), before its first check of
// the frame, in O(archetypes). Each frame every owner of watchpoints (a
// client, or the agent for the ones that outlive their client) has an
// equal share of Units; a watchpoint that does not fit what is left
// of its owner's share is not checked, and it is suspended with the
// reason, which the summary carries (Watchpoint.Suspended): the game is
// never slowed to check it. Turning it on again (EnableWatch) tries
// again. A measured guard backs the count: when the checks take more than
// watchTime a frame for watchOverFrames frames in a row, the costliest
// watchpoint is suspended the same way.

// Units is the row tests all value watchpoints together may make in a
// frame. A watchpoint is checked after each system that writes what it
// tests and at the frame's end, so a row written by three systems is
// walked about four times: on the 100k demo (a frame of 9-14 ms, every
// animal written by three systems) a watchpoint of one term on 120,000
// rows costs about 0.4 ms a frame. 256k lets two such be checked for a
// client alone (at 10,000 animals, twenty), and 64 that never fire, from
// three clients, cost the game nothing: no share fits one.
const Units = 1 << 18

// The weights of a row test, by how the rows are tested.
const (
	unitsKernel = 1  // a number compared in the kernel's loop (ecs.RawBound)
	unitsRaw    = 2  // a test func on the row's bytes
	unitsValue  = 16 // a test through the row's Go value (reflection), and the whole query for a row that passes
)

// The measured guard: the checks of a frame over watchTime and over
// watchFrameShare of the frame, for watchOverFrames frames in a row. Wall
// time on a busy machine says more than the checks' cost, so the guard is
// loose: the count above is the budget.
const (
	watchTime       = budget.PerFrame
	watchFrameShare = 0.2
	watchOverFrames = 8
)

// The watchpoints a client may set, and those that outlive their client.
const (
	// MaxClientWatchpoints bounds the watchpoints one client holds that go
	// when it disconnects.
	MaxClientWatchpoints = MaxWatchpoints / 2
	// MaxKeptWatchpoints bounds the watchpoints that stay after their
	// client leaves: the ones that pause the game, and log-only ones set
	// with Keep.
	MaxKeptWatchpoints = 16
)

// budgetOwner is whose share a watchpoint's checks come out of: its
// client's while the client is connected, then the agent's (0).
func (wp *watchpoint) budgetOwner() int {
	if wp.orphan {
		return 0
	}
	return wp.Owner
}

// kept reports whether the watchpoint stays when its client leaves.
func (wp *watchpoint) kept() bool { return !wp.Log || wp.Keep }

// share is each owner's row tests this frame: an equal part of Units
// for each owner of a value watchpoint that is on, suspended ones too (a
// suspended watchpoint does not hand its owner's share to others: removing
// it does).
func (ws *Set) share() int64 {
	owners := map[int]bool{}
	for _, wp := range ws.list {
		if wp.On && wp.Kind == "value" {
			owners[wp.budgetOwner()] = true
		}
	}
	return Units / int64(max(len(owners), 1))
}

// admit charges wp's checks of this frame to its owner's share, at its
// first check of the frame, or, if they do not fit, suspends the
// watchpoint and reports false.
func (s *Set) admit(wp *watchpoint) bool {
	if wp.admitted {
		return true
	}
	ws := s
	var cost int64
	rows := 0
	for _, comp := range wp.comps {
		cost += wp.checkCost(s.w.Inspect(), comp)
		rows += s.w.Inspect().ComponentRows(comp)
	}
	share := ws.share()
	owner := wp.budgetOwner()
	if ws.spent[owner]+cost > share {
		whose := "this client's watchpoints"
		if owner == 0 {
			whose = "watchpoints whose client has left"
		}
		left := max(share-ws.spent[owner], 0)
		s.suspend(wp, fmt.Sprintf("checking it would test %s rows a frame (%d of them, %s); %s may test %s a frame and %s are left: watch one entity (42v3 %s), add a component that narrows the rows, or remove another watchpoint",
			count(cost), rows, plural(wp.terms, "term"), whose, count(share), count(left), wp.spec.Query))
		return false
	}
	if ws.spent == nil {
		ws.spent = map[int]int64{}
	}
	ws.spent[owner] += cost
	wp.units += cost
	wp.admitted = true
	ws.tel.units += cost
	return true
}

// afford charges the whole query's test on a row that passed the first
// tests; false when the owner's share is spent: the check stops there
// (the hit found so far stands, its matches counted so far).
func (s *Set) afford(wp *watchpoint) bool {
	ws := s
	cost := int64(wp.terms * unitsValue)
	owner := wp.budgetOwner()
	if ws.spent[owner]+cost > ws.share() {
		wp.cut = true
		return false
	}
	ws.spent[owner] += cost
	wp.units += cost
	ws.tel.units += cost
	return true
}

// checkCost is the row tests a check of wp over comp's written rows costs
// at most: every row that holds comp, by the way they are tested.
func (wp *watchpoint) checkCost(ins ecs.Inspection, comp ecs.ComponentID) int64 {
	terms := int64(max(wp.terms, 1))
	if wp.spec.Entity != 0 {
		return terms * unitsValue
	}
	rows := int64(ins.ComponentRows(comp))
	switch {
	case wp.bounds[comp] != nil:
		return rows * int64(len(wp.bounds[comp])) * unitsKernel
	case wp.raw[comp] != nil:
		return rows * int64(len(wp.raw[comp])) * unitsRaw
	}
	return rows * terms * unitsValue
}

// Suspend stops checking watchpoint id, saying why (the summary carries
// it); EnableWatch turns it on again.
func (s *Set) Suspend(id uint32, why string) {
	if i := s.find(id); i >= 0 {
		s.suspend(s.list[i], why)
	}
}

// SuspendHolding suspends the watchpoints on whose hits the game's pause
// is held (protocol.Watch.Hold, pausing), saying why: the held pause was
// let go, and they would take the game again at their next hit.
func (s *Set) SuspendHolding(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, wp := range s.list {
		if wp.hold && !wp.Log && wp.On {
			s.suspend(wp, why)
		}
	}
}

// Budget is the most row tests charged in a frame so far, and how many
// watchpoints were suspended, in all.
func (s *Set) Budget() (mostUnits, suspended int64) { return s.tel.mostUnits, s.tel.suspended }

// suspend stops checking wp, saying why (the summary carries it).
func (s *Set) suspend(wp *watchpoint, why string) {
	if wp.Suspended != "" {
		return
	}
	wp.Suspended = why
	s.tel.suspended++
	s.logf("watchpoint %d (%s) suspended: %s", wp.ID, wp.Expr, why)
}

// endWatchFrame closes the frame's accounting: the shares start again,
// and the measured guard looks at what the checks took.
func (s *Set) endWatchFrame() {
	clear(s.lastStates)
	ws := s
	var frame int64
	for _, n := range ws.spent {
		frame += n
	}
	ws.tel.mostUnits = max(ws.tel.mostUnits, frame)
	clear(ws.spent)
	took := ws.frameTook
	ws.frameTook = 0
	var costliest *watchpoint
	for _, wp := range ws.list {
		if wp.Suspended == "" && wp.units > 0 && (costliest == nil || wp.units > costliest.units) {
			costliest = wp
		}
		wp.units, wp.cut, wp.admitted = 0, false, false
	}
	if took <= watchTime || float64(took) <= watchFrameShare*float64(s.frameNs()) || costliest == nil {
		ws.overFrames = 0
		return
	}
	if ws.overFrames++; ws.overFrames >= watchOverFrames {
		ws.overFrames = 0
		s.suspend(costliest, fmt.Sprintf("the watchpoints' checks took %v a frame for %d frames, over %v and over %.0f%% of the frame: this one cost the most", took.Round(time.Microsecond), watchOverFrames, watchTime, 100*watchFrameShare))
	}
}

// ForgetClient removes the watchpoints of a client that left, but for
// those that outlive it.
func (s *Set) ForgetClient(owner int) {
	ws := s
	ws.mu.Lock()
	defer ws.mu.Unlock()
	kept := ws.list[:0]
	for _, wp := range ws.list {
		if wp.Owner == owner && !wp.kept() {
			continue
		}
		if wp.Owner == owner {
			wp.orphan = true // its checks now come out of the agent's share
		}
		kept = append(kept, wp)
	}
	clear(ws.list[len(kept):])
	ws.list = kept
}

// plural is "1 term", "3 terms".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// count prints a number of row tests: 1.2M, 640k, 12.
func count(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
