package inspector

import "time"

// The agent's own upkeep on the game goroutine (the dangling-handle scan,
// the last state of despawned entities: work no client asked for) draws
// on one budget measured against the game's own work, so a game at
// thousands of ticks a second pays the same share as one at 60: at most
// upkeepShare of the game's work in a frame, plus upkeepFloor. Work that
// does not fit goes on next frame. With nobody looking, a scan that ends
// its pass quickly waits: a pass at most each danglingEvery
// (stepDangling).
const (
	upkeepShare   = 0.02
	upkeepFloor   = 2 * time.Microsecond
	danglingEvery = 250 * time.Millisecond
)

// danglingLeast is the fewest handles the dangling scan reads a frame,
// whatever the allowance: a pass of a big world still ends.
const danglingLeast = 64

// upkeep paces the agent's own work: each frame it allows a time from the
// game's work, and learns what a unit of each kind of work costs.
type upkeep struct {
	allowed time.Duration // this frame's allowance
	left    time.Duration // what the frame's own upkeep left of it for Sync's
	nsPer   float64       // a dangling-handle read's cost, smoothed; 0 until measured
}

// frame sets the allowance from the game's work in the last frame (its
// schedule's run to Sync, or Sync to Sync less the agent's own time), and
// what is left of it after spent, the upkeep the frame already did (the
// last states kept at its despawns): one budget for all of it.
func (u *upkeep) frame(gameWork, spent time.Duration) {
	u.allowed = time.Duration(upkeepShare*float64(max(gameWork, 0))) + upkeepFloor
	u.left = max(u.allowed-spent, 0)
}

// units is how many units of a work costing nsPer each fit the
// allowance, between least and most.
func (u *upkeep) units(least, most int) int {
	if u.nsPer <= 0 {
		return least // first measure
	}
	return min(most, max(least, int(float64(u.left.Nanoseconds())/u.nsPer)))
}

// spent learns from units done in took.
func (u *upkeep) spent(units int, took time.Duration) {
	if units <= 0 {
		return
	}
	per := float64(took.Nanoseconds()) / float64(units)
	if u.nsPer == 0 {
		u.nsPer = per
	} else {
		u.nsPer += (per - u.nsPer) / 8
	}
}

// stepDangling reads the next handles of the dangling scan. While
// someone looks (a client connected, a dangling watchpoint set) it reads
// Options.DanglingBudget a frame, so each frame's despawns are found by
// its end; with nobody looking it reads what fits the upkeep's share, a
// pass at most each danglingEvery.
func (a *Agent) stepDangling() {
	if a.srv.Clients() > 0 || a.watches.WatchesDangling() {
		a.dangling.Step()
		return
	}
	if !a.dangling.Due(a.dangling.Clock(), danglingEvery) {
		return
	}
	t0 := time.Now()
	a.upkeep.spent(a.dangling.StepUpTo(a.upkeep.units(danglingLeast, a.opts.DanglingBudget)), time.Since(t0))
}
