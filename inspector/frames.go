package inspector

import (
	"runtime/debug"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The last frames, for the Systems view's timeline: each frame's tick,
// time and work and when it ended, noted by Sync (no read of the runtime
// per frame); the garbage collections are placed on the frames as a
// summary is made, by the end times of their pauses.

// frameRec is one frame as Sync saw it end.
type frameRec struct {
	tick     uint64
	ns, work int64
	entities int
	end      time.Time
}

// frameRing keeps the last protocol.MaxFrames frames.
type frameRing struct {
	rec [protocol.MaxFrames]frameRec
	n   uint64
}

// note keeps a frame that ended at end.
func (r *frameRing) note(f frameRec) {
	r.rec[r.n%protocol.MaxFrames] = f
	r.n++
}

// stats is the frames kept, oldest first, with the garbage collections
// whose pauses ended in each (pause ends, newest first, as
// debug.ReadGCStats gives them).
func (r *frameRing) stats(pauseEnd []time.Time, pause []time.Duration) []protocol.FrameStat {
	n := min(r.n, protocol.MaxFrames)
	out := make([]protocol.FrameStat, 0, n)
	var prevEnd time.Time
	for k := r.n - n; k < r.n; k++ {
		f := r.rec[k%protocol.MaxFrames]
		fs := protocol.FrameStat{Tick: f.tick, Ns: f.ns, Work: f.work, Entities: f.entities}
		start := prevEnd
		if start.IsZero() {
			start = f.end.Add(-time.Duration(f.ns))
		}
		for i, at := range pauseEnd {
			if at.After(start) && !at.After(f.end) {
				fs.GC++
				if i < len(pause) {
					fs.GCPauseNs += pause[i].Nanoseconds()
				}
			}
		}
		out = append(out, fs)
		prevEnd = f.end
	}
	return out
}

// framesForSummary is the frames kept, with the runtime's recent garbage
// collections placed on them.
func (a *Agent) framesForSummary() []protocol.FrameStat {
	if a.frames.n == 0 {
		return nil
	}
	var gc debug.GCStats
	debug.ReadGCStats(&gc)
	return a.frames.stats(gc.PauseEnd, gc.Pause)
}
