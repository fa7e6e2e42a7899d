package inspector

import "time"

// Each system's allocations are read around its runs (ecs
// Schedule.TrackAllocs) on the frames that keep the reads within a small
// share of the game's own work, at what the reads were measured to cost
// in this game: one frame in a few of the 100k demo's, one in many of a
// game that ticks in microseconds.

// allocShare is the share of the game's work the reads may take.
const allocShare = 0.002

// sampleAllocs decides, as a frame ends, whether the next frame's systems
// read their allocations (allocEvery).
func (a *Agent) sampleAllocs(work time.Duration) {
	s := a.opts.Schedule
	if s == nil {
		return
	}
	cost := s.AllocReadCost()
	if cost == 0 { // not measured yet: the next frame measures it
		s.TrackAllocs = true
		return
	}
	a.allocFrames++
	s.TrackAllocs = a.allocFrames%allocEvery(s.Len(), cost, work) == 0
}

// allocEvery is how seldom a schedule of systems reads its allocations:
// one frame in every n, n the smallest that keeps the reads, at perRun a
// system, within allocShare of work, the last frame's.
func allocEvery(systems int, perRun, work time.Duration) uint64 {
	cost := time.Duration(systems) * perRun
	if budget := time.Duration(allocShare * float64(work)); budget > 0 && budget < cost {
		return uint64(cost/budget) + 1
	}
	return 1
}
