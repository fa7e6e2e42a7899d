package inspector

import "time"

// Each system's allocations are read around its runs (ecs
// Schedule.TrackAllocs) on the frames that keep the reads within a small
// share of the game's own work: every frame of a game whose frame takes
// milliseconds, one frame in many of a game that ticks in microseconds.

// allocShare is the share of the game's work the reads may take.
const allocShare = 0.005

// allocReadCost is what the reads around one system's run cost (two reads
// of runtime/metrics, measured at about 300 ns each).
const allocReadCost = 600 * time.Nanosecond

// sampleAllocs decides, as a frame ends, whether the next frame's systems
// read their allocations: one frame in every n, n the smallest that keeps
// the reads within allocShare of work, the last frame's.
func (a *Agent) sampleAllocs(work time.Duration) {
	s := a.opts.Schedule
	if s == nil {
		return
	}
	cost := time.Duration(s.Len()) * allocReadCost
	every := uint64(1)
	if budget := time.Duration(allocShare * float64(work)); budget > 0 && budget < cost {
		every = uint64(cost/budget) + 1
	}
	a.allocFrames++
	s.TrackAllocs = a.allocFrames%every == 0
}
