package inspector

import "time"

// The agent's own upkeep on the game goroutine (the dangling-handle scan;
// work no client asked for) draws on one budget measured against the
// game's own work, so a game at thousands of ticks a second pays the same
// share as one at 60: at most upkeepShare of the game's work in a frame,
// plus upkeepFloor. Work that does not fit goes on next frame.
const (
	upkeepShare = 0.05
	upkeepFloor = 20 * time.Microsecond
)

// danglingLeast is the fewest handles the dangling scan reads a frame,
// whatever the allowance: a pass of a big world still ends.
const danglingLeast = 256

// upkeep paces the agent's own work: each frame it allows a time from the
// game's work, and learns what a unit of each kind of work costs.
type upkeep struct {
	allowed time.Duration // this frame's allowance
	nsPer   float64       // a dangling-handle read's cost, smoothed; 0 until measured
}

// frame sets the allowance from the game's work in the last frame (its
// schedule's run to Sync, or Sync to Sync less the agent's own time).
func (u *upkeep) frame(gameWork time.Duration) {
	u.allowed = time.Duration(upkeepShare*float64(max(gameWork, 0))) + upkeepFloor
}

// units is how many units of a work costing nsPer each fit the
// allowance, between least and most.
func (u *upkeep) units(least, most int) int {
	if u.nsPer <= 0 {
		return least // first measure
	}
	return min(most, max(least, int(float64(u.allowed.Nanoseconds())/u.nsPer)))
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
