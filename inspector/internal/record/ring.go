package record

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// Ring is the agent's in-memory recording of the last moments of the
// run, what a Rewind restores from: world frames as a recording holds them
// (keyframes and deltas, compressed), the oldest dropped a keyframe's run
// at a time once the ring holds more bytes than its limit or frames older
// than its window. It asks its stream for a keyframe every ringKeyGap
// frames (and whenever a quarter of the limit went by since one), so a
// rewind replays a few frames at most and dropping a run frees little.
type Ring struct {
	limit  int64
	window time.Duration
	// Clock is the game's running time: the window is of game time, so
	// the time a game spends paused keeps its frames (time.Since a fixed
	// start when nothing pauses). Set it before the first frame.
	Clock func() time.Duration

	mu       sync.Mutex
	want     func()  // asks the recorder for a keyframe
	frames   []Frame // oldest first; frames[0] is a keyframe
	bytes    int64
	sinceKey int64 // bytes since the newest keyframe
	keyGap   int   // frames since the newest keyframe
	asked    bool  // a keyframe was asked for since the newest: once is enough (the encoder, behind, has it on the way)
	// short: the byte limit dropped frames still inside the window (the
	// world's frames are too big for it).
	short bool
}

// ringKeyGap bounds the frames between the ring's keyframes: a rewind
// replays at most this many.
const ringKeyGap = 4

// Frame is a frame the ring holds, with its capture's write marks.
type Frame struct {
	f     *protocol.WorldFrame
	marks []tableMarks  // who wrote the rows the frame holds (marks.go)
	run   time.Duration // the game's running time as it was kept (Ring.Clock)
	size  int64
}

// Tick is the frame's tick.
func (f Frame) Tick() uint64 { return f.f.Tick }

// Partial reports whether a table of the frame lists only the rows it
// changed (a delta's table), not every row.
func (f Frame) Partial() bool {
	for _, tm := range f.marks {
		if !tm.all {
			return true
		}
	}
	return false
}

// NewRing makes a ring of at most limit bytes and window's frames, going
// on from seed (frames of bytes kept from before a rewind: Before).
func NewRing(limit int64, window time.Duration, seed []Frame, bytes int64) *Ring {
	start := time.Now()
	return &Ring{limit: limit, window: window, frames: seed, bytes: bytes, Clock: func() time.Duration { return time.Since(start) }}
}

// AskKeyframes has the ring call want when it wants a keyframe.
func (r *Ring) AskKeyframes(want func()) {
	r.mu.Lock()
	r.want = want
	r.mu.Unlock()
}

// ringOverhead is what a frame costs in memory beyond its body.
const ringOverhead = 128

// WriteWorld keeps a frame.
func (r *Ring) WriteWorld(f *protocol.WorldFrame) error { return r.writeMarked(f, nil) }

// writeMarked keeps a frame and its capture's write marks.
func (r *Ring) writeMarked(f *protocol.WorldFrame, marks []tableMarks) error {
	size := int64(len(f.Body)) + ringOverhead + marksBytes(marks)
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.Full || len(r.frames) == 0 {
		if !f.Full {
			return nil // the ring starts at a keyframe
		}
		r.sinceKey, r.keyGap, r.asked = 0, 0, false
	}
	now := r.Clock()
	r.frames = append(r.frames, Frame{f: f, marks: marks, run: now, size: size})
	r.bytes += size
	r.sinceKey += size
	r.keyGap++
	if (r.sinceKey > r.limit/4 || r.keyGap >= ringKeyGap) && r.want != nil && !r.asked {
		r.asked = true
		r.want()
	}
	r.evict(now)
	return nil
}

// evict drops runs of frames from the oldest keyframe up to the next one
// while the ring is over its limit or its oldest frame is out of the
// window (of the game's running time, now); the newest run is always
// kept.
func (r *Ring) evict(now time.Duration) {
	for len(r.frames) > 0 && (r.bytes > r.limit || now-r.frames[0].run > r.window) {
		r.short = r.short || now-r.frames[0].run <= r.window
		next := -1
		for i := 1; i < len(r.frames); i++ {
			if r.frames[i].f.Full {
				next = i
				break
			}
		}
		if next < 0 {
			return
		}
		for _, fr := range r.frames[:next] {
			r.bytes -= fr.size
		}
		r.frames = append(r.frames[:0:0], r.frames[next:]...)
	}
}

// Flush does nothing: the ring is memory.
func (r *Ring) Flush() error { return nil }

// Close lets every frame go.
func (r *Ring) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames, r.bytes = nil, 0
	return nil
}

// Bytes is what the ring holds.
func (r *Ring) Bytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// Span returns the frames that rebuild the newest recorded tick at or
// before tick (the newest of all for a tick after it): its keyframe and
// every frame after it up to that tick.
func (r *Ring) Span(tick uint64) ([]Frame, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.frames) == 0 {
		return nil, fmt.Errorf("nothing is recorded yet")
	}
	from, to := r.frames[0].f.Tick, r.frames[len(r.frames)-1].f.Tick
	if tick < from {
		err := fmt.Errorf("tick %d is not in the in-memory recording: it holds ticks %d to %d", tick, from, to)
		if short := r.shortLocked(); short != "" {
			err = fmt.Errorf("%w; %s", err, short)
		}
		return nil, err
	}
	end := len(r.frames) - 1
	for end > 0 && r.frames[end].f.Tick > tick {
		end--
	}
	key := end
	for !r.frames[key].f.Full {
		key--
	}
	return slices.Clone(r.frames[key : end+1]), nil
}

// All returns every frame the ring holds, oldest first (the first a
// keyframe): what a search of the past reads, off the game goroutine (a
// frame is never changed once held).
func (r *Ring) All() []Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.frames)
}

// Before returns the frames of ticks before tick, for a new ring that
// goes on from tick after a rewind, and their bytes.
func (r *Ring) Before(tick uint64) ([]Frame, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	var bytes int64
	for n < len(r.frames) && r.frames[n].f.Tick < tick {
		bytes += r.frames[n].size
		n++
	}
	return append([]Frame(nil), r.frames[:n]...), bytes
}

// Describe says what the ring holds, for the summary.
func (r *Ring) Describe() *protocol.RewindRange {
	r.mu.Lock()
	defer r.mu.Unlock()
	rr := &protocol.RewindRange{Frames: len(r.frames), Bytes: r.bytes, Limit: r.limit, Short: r.shortLocked(), Seconds: r.heldLocked().Seconds(), Window: r.window.Seconds()}
	if len(r.frames) > 0 {
		rr.From, rr.To = r.frames[0].f.Tick, r.frames[len(r.frames)-1].f.Tick
		rr.Age = max(r.Clock()-r.frames[len(r.frames)-1].run, 0).Seconds()
	}
	return rr
}

// heldLocked is the game's running time between the oldest frame held
// and the newest.
func (r *Ring) heldLocked() time.Duration {
	if len(r.frames) == 0 {
		return 0
	}
	return r.frames[len(r.frames)-1].run - r.frames[0].run
}

// shortLocked says how far back the ring reaches when its byte limit,
// not its window, bounds it, and what limit would hold the window; "" when
// the window does.
func (r *Ring) shortLocked() string {
	if !r.short || len(r.frames) == 0 {
		return ""
	}
	per := r.bytes / int64(len(r.frames))
	held := r.heldLocked()
	round := time.Millisecond
	if held >= time.Second {
		round = 100 * time.Millisecond
	}
	reach := fmt.Sprintf("%d frames, %v back", len(r.frames), held.Round(round))
	want := "several times that"
	if held > 0 {
		want = "about " + protocol.ByteSize(int(float64(r.bytes)*float64(r.window)/float64(held)))
	}
	return fmt.Sprintf("this world's recorded frames take about %s each: the %s limit holds %s, not the %v window (Options.RewindBytes of %s would hold it)",
		protocol.ByteSize(int(per)), protocol.ByteSize(int(r.limit)), reach, r.window, want)
}

// Layout lists the ring's frames, for a failure's message: each tick, K
// for a keyframe or D for a delta, and * where a table of it is whole.
func (r *Ring) Layout() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, fr := range r.frames {
		kind := "D"
		if fr.f.Full {
			kind = "K"
		}
		for _, tm := range fr.marks {
			if tm.all {
				kind += "*"
				break
			}
		}
		fmt.Fprintf(&b, " %d%s", fr.f.Tick, kind)
	}
	return b.String()
}
