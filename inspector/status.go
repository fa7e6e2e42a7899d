package inspector

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/transport"
)

// The game's status for a transport's announcements, left by Sync on the
// game goroutine at most every statusEvery, read from any goroutine. Only
// an agent with a transport that announces (a broker) keeps it.

// statusEvery is how often Sync leaves a fresh status.
const statusEvery = 250 * time.Millisecond

// statusNotes is Sync's own bookkeeping for the status (game goroutine),
// and the newest status it left.
type statusNotes struct {
	on         bool // a transport reads it
	noted      time.Time
	notedTick  uint64
	frameTimes [128]int64
	frameN     int
	runStarted time.Time // the schedule's last run began
	newest     atomic.Pointer[transport.Status]
}

// noteFrame keeps the frame's time for the status's percentile: from the
// schedule's start to the end of this Sync (the game's work and the
// agent's, not the wait between frames), or with no schedule, from one
// Sync to the next; game goroutine.
func (a *Agent) noteFrame(now time.Time) {
	n := &a.status
	if !n.on {
		return
	}
	ns := a.frameNs
	if !n.runStarted.IsZero() {
		ns = now.Sub(n.runStarted).Nanoseconds()
	}
	if ns <= 0 {
		return
	}
	n.frameTimes[n.frameN%len(n.frameTimes)] = ns
	n.frameN++
}

// noteStatus leaves a fresh status, at most every statusEvery (now, when
// forced or when the game paused or ran on since the last one, so an
// announcement never calls a stopped game running); game goroutine.
func (a *Agent) noteStatus(now time.Time, force bool) {
	n := &a.status
	if !n.on {
		return
	}
	paused := a.paused || a.mid != nil
	if prev := n.newest.Load(); !force && now.Sub(n.noted) < statusEvery && prev != nil && prev.Paused == paused {
		return
	}
	tick := a.w.Frame()
	s := transport.Status{Tick: tick, Entities: a.w.Len(), Paused: paused, Clients: a.srv.Clients()}
	if !n.noted.IsZero() && tick >= n.notedTick && !s.Paused {
		s.TPS = float64(tick-n.notedTick) / now.Sub(n.noted).Seconds()
	}
	if k := min(n.frameN, len(n.frameTimes)); k > 0 {
		times := slices.Clone(n.frameTimes[:k])
		slices.Sort(times)
		s.FrameP99 = float64(times[(k*99)/100]) / 1e6
	}
	s.Hits = a.watches.Hits()
	n.noted, n.notedTick = now, tick
	n.newest.Store(&s)
}
