package record

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Recorder records a stream of the game's frames into a sink: captures
// in Sync, paced and bounded in bytes waiting; encoding and writing on the
// recorder's goroutine.
type Recorder struct {
	// work counts what the captures did (Work).
	work   struct{ captures, converted, copied atomic.Int64 }
	w      Sink
	Stream *Stream
	period time.Duration
	// Share, when set, is the most of the game's time the captures may
	// take, on average: frames past it are not taken (pacer).
	// EncodeShare is then the most of a core its coding may take
	// (encodeShare when 0).
	Share, EncodeShare float64
	// EncodeInShare counts the coding against Share too, beside its own
	// share of a core: a recorder that is the agent's own upkeep (the
	// in-memory ring) costs the game its share in all, the core its coding
	// takes from a game that uses every core included.
	EncodeInShare bool
	// Within, when set, is the longest a recorder whose shares would hold
	// it back goes without a capture: past it one is taken whatever the
	// shares say (the in-memory ring: its newest frame stays within a
	// second of the game, a million entities or not). The encoder's queue
	// still bounds it.
	Within time.Duration
	taken  time.Time // when the last capture was taken
	next   time.Time
	jobs   chan *Job
	done   chan struct{}   // closed once the file is closed; err holds the outcome
	err    error           // the recording's outcome, set before done closes
	closed <-chan struct{} // when it closes, the recorder ends (nil: never)
	// Audience, for a world feed, is who listens at a capture: the frame
	// coded from it goes to them (FanOutSink).
	Audience func() any
	hooks    Hooks
	ended    bool      // finished: no more captures (game goroutine)
	ending   sync.Once // the one way a recording ends (Stop, end)
	mu       sync.Mutex
	why      string // why it ended, if it ended by itself (a rewind)
	written  int
	skipped  int
	bytes    int64
	coded    int64        // bytes of frames written, in all, whatever a flight recording let go since
	queued   atomic.Int64 // bytes of captures not yet encoded
	encodeNs atomic.Int64 // time spent coding frames, in all (run's goroutine)
	// pace and encodePace hold a paced recorder's captures to share of
	// the game's time and its coding to encodeShare of a core, on
	// average (game goroutine); encodeSeen is the coding already spent.
	pace, encodePace pacer
	encodeSeen       int64
	last             int64 // bytes of the newest capture (game goroutine)
	// missed counts the frames an every-frame recorder did not capture
	// since its last capture, and missWhy says why (game goroutine); the
	// next frame written carries them (WorldFrame.Skipped).
	missed  uint64
	missWhy string
}

// miss notes a frame an every-frame recorder does not capture.
func (r *Recorder) miss(why string) {
	if r.period == 0 {
		r.missed++
		r.missWhy = why
	}
}

// Owed reports whether an every-frame recorder's last frame was not
// captured: a paused game takes it again (Agent.hold), and Stop takes it,
// so a recording ends with the state the game was stopped or paused in.
func (r *Recorder) Owed() bool { return r.missed > 0 }

// encodeShare is the most of a core a paced recorder's coding may take
// (see Recorder.Share): frames that take longer to code are spaced out.
const encodeShare = 0.35

// pacer holds work to a share of the time that passes, on average: its
// credit grows by share of the time since it was last asked, up to share
// of paceBurst, and work spends it; while it is overspent, work waits. A
// keyframe or a collection now and then is paid back over the frames
// after it, not by a run of frames lost at once.
type pacer struct {
	credit float64 // ns
	at     time.Time
}

// paceBurst is the time whose share a pacer may save up: a few frames of
// 100,000 entities, so that a client subscribing anew gets no burst of
// costly frames, while a world whose captures fit comfortably gets every
// frame through the jitter of a frame now and then taking longer.
const paceBurst = 250 * time.Millisecond

// allow reports whether work may run now at share.
func (p *pacer) allow(now time.Time, share float64) bool {
	most := share * float64(paceBurst)
	if !p.at.IsZero() && now.After(p.at) { // a new pacer starts with none saved
		p.credit = min(p.credit+share*float64(now.Sub(p.at)), most)
	}
	p.at = now
	return p.credit >= 0
}

// spend charges work of ns.
func (p *pacer) spend(ns float64) { p.credit -= ns }

// recorderQueueBytes bounds the captures a recorder holds waiting for its
// encoder: past it a frame is skipped (the next capture holds its
// changes), unless nothing waits, so one capture is always allowed. A
// million-entity keyframe is tens of megabytes: a count alone would let
// the queue hold hundreds.
const recorderQueueBytes = 32 << 20

// Sink is where a recorder's frames go: a file, or the agent's
// in-memory ring.
type Sink interface {
	WriteWorld(f *protocol.WorldFrame) error
	Flush() error
	Close() error
	Bytes() int64
}

// marksSink is a sink that keeps each frame's write marks beside it (the
// in-memory ring, for a rewind's provenance).
type marksSink interface {
	writeMarked(f *protocol.WorldFrame, marks []tableMarks) error
}

// Hooks are what a recorder tells its agent.
type Hooks struct {
	// Ended is called on the game goroutine as the recording ends (Stop,
	// End): the agent stops capturing for it.
	Ended func(*Recorder)
	// Logf receives what went wrong after the game stopped waiting.
	Logf func(format string, args ...any)
}

// New makes a recorder of stream's frames into w, hz frames a second (0:
// every frame), that has taken nothing yet: Begin starts it. Its encoder
// ends when closed does (nil: when the recorder is stopped).
func New(w Sink, stream *Stream, hz float64, closed <-chan struct{}, hooks Hooks) *Recorder {
	r := &Recorder{w: w, Stream: stream, jobs: make(chan *Job, 8), done: make(chan struct{}), closed: closed, hooks: hooks}
	if hz > 0 {
		r.period = time.Duration(float64(time.Second) / hz)
	}
	return r
}

// Begin takes the first frame (a keyframe) now and starts the encoding
// goroutine; call it on the game goroutine.
func (r *Recorder) Begin() {
	r.Capture(time.Now())
	go r.run()
}

// Capture is the recorder's turn in Sync: it takes a frame if one is due
// and the encoder keeps up.
func (r *Recorder) Capture(now time.Time) {
	if now.Before(r.next) {
		return
	}
	if q := r.queued.Load(); len(r.jobs) == cap(r.jobs) || (q > 0 && q+r.last > recorderQueueBytes) {
		// The encoder or the disk is behind: take nothing this frame
		// rather than hold the game or pile up copies. The next capture
		// holds every change since the last one.
		r.mu.Lock()
		r.skipped++
		r.mu.Unlock()
		r.miss("the encoder or the disk was behind")
		return
	}
	if r.Share > 0 && (r.Within == 0 || now.Sub(r.taken) < r.Within) {
		enc := r.encodeNs.Load()
		r.encodePace.spend(float64(enc - r.encodeSeen))
		if r.EncodeInShare {
			r.pace.spend(float64(enc - r.encodeSeen))
		}
		r.encodeSeen = enc
		if !r.pace.allow(now, r.Share) {
			r.miss("capturing took more than its share of the game's time")
			return // past its share: the next capture holds every change since
		}
		if !r.encodePace.allow(now, max(r.EncodeShare, encodeShare)) {
			r.miss("coding took more than its share of a core")
			return
		}
	}
	r.Take(now)
}

// Take captures the world now and queues it for the encoder, with the
// frames missed since the last capture.
func (r *Recorder) Take(now time.Time) {
	r.next, r.taken = now.Add(r.period), now
	started := time.Now()
	j := r.Stream.Capture()
	if r.Audience != nil {
		j.to = r.Audience()
	}
	if r.Share > 0 {
		r.pace.spend(float64(time.Since(started)))
	}
	r.last = j.bytes
	r.work.captures.Add(1)
	if j.budget != nil {
		r.work.converted.Add(int64(j.budget.Made()))
	}
	r.work.copied.Add(j.bytes)
	j.skipped, j.skipWhy, r.missed, r.missWhy = r.missed, r.missWhy, 0, ""
	r.queued.Add(j.bytes)
	r.jobs <- j
}

// idleCopyLife is how long a lean stream (the in-memory ring) keeps its
// world copy with no frame coming: a copy that waits longer is let go,
// and the next frame is a keyframe. Longer than the ring's longest period
// (4 s, in a world its share records seldom), so a game that runs on keeps
// coding deltas.
const idleCopyLife = 5 * time.Second

func (r *Recorder) run() {
	var err error
	idle := time.NewTicker(recording.FlushEvery) // frames may stop (a paused game): flush anyway
	defer idle.Stop()
	lastFrame := time.Now()
	for {
		var job *Job
		var open bool
		select {
		case job, open = <-r.jobs:
		case <-r.closed:
			open = false
		case <-idle.C:
			if err == nil {
				err = r.w.Flush()
			}
			if r.Stream.Enc.Lean && time.Since(lastFrame) >= idleCopyLife {
				r.Stream.Enc.DropCopy() // captures come seldom: code the next as a keyframe rather than hold the copy till then
			}
			continue
		}
		if !open {
			break
		}
		if err != nil {
			r.queued.Add(-job.bytes)
			continue
		}
		var f *protocol.WorldFrame
		encStart := time.Now()
		lastFrame = encStart
		f, err = r.Stream.Encode(job)
		r.encodeNs.Add(int64(time.Since(encStart)))
		if errors.Is(err, recording.ErrNeedKeyframe) {
			// A delta the encoder has nothing to code against (a lean
			// stream's): left out, the next capture is a keyframe.
			err = nil
			r.queued.Add(-job.bytes)
			r.mu.Lock()
			r.skipped++
			r.mu.Unlock()
			continue
		}
		if err == nil {
			if fs, ok := r.w.(FanOutSink); ok {
				fs.FanOut(f, job.to)
			} else if ms, ok := r.w.(marksSink); ok {
				err = ms.writeMarked(f, job.marks)
			} else {
				err = r.w.WriteWorld(f)
			}
		}
		r.queued.Add(-job.bytes)
		r.mu.Lock()
		r.written++
		if f != nil {
			r.coded += int64(len(f.Body))
		}
		r.bytes = r.w.Bytes()
		r.mu.Unlock()
	}
	if cerr := r.w.Close(); err == nil {
		err = cerr
	}
	r.Stream.Cap.Release() // the recording ended: its recycled capture memory goes now
	r.err = err
	close(r.done)
}

// Queued is how many captures wait for the encoder, and how many it may
// Work is what the recorder's captures did on the game goroutine so far:
// captures taken, values converted there, bytes copied (about).
func (r *Recorder) Work() (captures, converted, copied int64) {
	return r.work.captures.Load(), r.work.converted.Load(), r.work.copied.Load()
}

// hold before frames are skipped.
func (r *Recorder) Queued() (jobs, room int) { return len(r.jobs), cap(r.jobs) }

// Keyframe makes the next recorded frame a keyframe: a place review can
// jump to ({ }) and seek from. Keyframes come by themselves too (see
// PROTOCOL.md); this marks a moment.
func (r *Recorder) Keyframe() { r.Stream.Enc.RequestKeyframe() }

// Frames is how many frames the recorder has written.
func (r *Recorder) Frames() int { return locked(&r.mu, &r.written) }

// Skipped is how many frames were not recorded because the writer was
// behind (the game never waits for the disk).
func (r *Recorder) Skipped() int { return locked(&r.mu, &r.skipped) }

// Bytes is how many bytes the recording holds so far.
func (r *Recorder) Bytes() int64 { return locked(&r.mu, &r.bytes) }

// Coded is the bytes of the frames written so far, in all: what the run
// costs (a flight recording keeps fewer on disk, Bytes).
func (r *Recorder) Coded() int64 { return locked(&r.mu, &r.coded) }

// locked reads a counter the writer goroutine updates, under its lock.
func locked[T any](mu *sync.Mutex, v *T) T {
	mu.Lock()
	defer mu.Unlock()
	return *v
}

// Stop ends the recording, writing the index, and waits for the file to
// close; call it on the game goroutine. A recording of every frame ends
// with the world as Stop finds it, even when the frames just before were
// missed (they are counted in the file). A recording that already ended (a
// rewind ends it: a file's ticks never go backwards) is closed already:
// Stop then only reports its outcome. Stop may be called any number of
// times.
func (r *Recorder) Stop() error {
	if r.Owed() && !r.ended {
		// An every-frame recording that missed the last frames ends with
		// the world it is stopped in: one capture past the queue's bound,
		// which Stop waits out with the rest.
		r.Take(time.Now())
	}
	r.finish("")
	<-r.done
	return r.err
}

// Ended says why the recording ended by itself ("the game was rewound"),
// or "" while it runs or if Stop ended it.
func (r *Recorder) Ended() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.why
}

// finish is the one place a recording ends: the agent is told (it takes
// no more captures for it) and its encoder that no more frames come, once,
// whoever asks first.
func (r *Recorder) finish(why string) {
	r.ending.Do(func() {
		r.mu.Lock()
		r.why = why
		r.mu.Unlock()
		r.ended = true
		if r.hooks.Ended != nil {
			r.hooks.Ended(r)
		}
		close(r.jobs)
	})
}

// End ends the recording without waiting for the file to close: for the
// game goroutine, which does not wait on a disk. Stop waits.
func (r *Recorder) End(why string) {
	r.finish(why)
	go func() {
		<-r.done
		if r.err != nil && r.hooks.Logf != nil {
			r.hooks.Logf("recording ended (%s): %v", why, r.err)
		}
	}()
}

// FanOutSink is a sink that hands each frame to those who listened when
// it was captured (Recorder.Audience), rather than writing it.
type FanOutSink interface {
	FanOut(f *protocol.WorldFrame, to any)
}
