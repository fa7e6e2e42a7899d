package inspector

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Recorder records the game's run to a file: every entity and value at
// every recorded tick, as WorldFrames (keyframes and deltas, see
// PROTOCOL.md). Captures happen in Sync; encoding, compression and writing
// on the recorder's goroutine.
type Recorder struct {
	a      *Agent
	w      frameSink
	stream *worldStream
	period time.Duration
	share  float64 // when set, the most of the game's time the captures may take, on average: frames past it are not taken (pacer)
	next   time.Time
	jobs   chan *worldJob
	done   chan struct{}   // closed once the file is closed; err holds the outcome
	err    error           // the recording's outcome, set before done closes
	closed <-chan struct{} // when it closes, the recorder ends (nil: never)
	// audience, for a world feed, is who listens at a capture: the frame
	// coded from it goes to them (worldfeed.go).
	audience func() []*feedSub
	ending   sync.Once // the one way a recording ends (Stop, end)
	mu       sync.Mutex
	why      string // why it ended, if it ended by itself (a rewind)
	written  int
	skipped  int
	bytes    int64
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

// owed reports whether an every-frame recorder's last frame was not
// captured: a paused game takes it again (Agent.hold), and Stop takes it,
// so a recording ends with the state the game was stopped or paused in.
func (r *Recorder) owed() bool { return r.missed > 0 }

// encodeShare is the most of a core a paced recorder's coding may take
// (see Recorder.share): frames that take longer to code are spaced out.
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

// Record starts recording the run to path: hz frames per second, or every
// frame the agent sees (every Sync) when hz <= 0. Stop it with
// Recorder.Stop. Call it on the game goroutine: the first frame, a
// keyframe, is taken there and then.
func (a *Agent) Record(path string, hz float64) (*Recorder, error) {
	w, err := recording.CreateRecording(path, recording.RecordingHeader{Game: a.opts.Game, Hz: max(hz, 0)})
	if err != nil {
		return nil, err
	}
	r := a.startRecorder(w, hz, nil)
	a.recorders = append(a.recorders, r)
	a.tel.recording.Store(path)
	return r, nil
}

// frameSink is where a recorder's frames go: a file, or the agent's
// in-memory ring.
type frameSink interface {
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

// startRecorder takes the first frame (a keyframe) now and starts the
// recorder's encoding goroutine, which ends when closed does (nil: when
// the recorder is stopped).
func (a *Agent) startRecorder(w frameSink, hz float64, closed <-chan struct{}) *Recorder {
	r := a.newRecorder(w, hz, closed)
	r.begin()
	return r
}

// newRecorder makes a recorder that has taken nothing yet: begin starts it.
func (a *Agent) newRecorder(w frameSink, hz float64, closed <-chan struct{}) *Recorder {
	r := &Recorder{a: a, w: w, stream: a.newWorldStream(0), jobs: make(chan *worldJob, 8), done: make(chan struct{}), closed: closed}
	if hz > 0 {
		r.period = time.Duration(float64(time.Second) / hz)
	}
	return r
}

// begin takes the first frame (a keyframe) now and starts the encoding
// goroutine.
func (r *Recorder) begin() {
	r.capture(time.Now())
	go r.run()
}

// capture is the recorder's turn in Sync.
func (r *Recorder) capture(now time.Time) {
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
	if r.share > 0 {
		enc := r.encodeNs.Load()
		r.encodePace.spend(float64(enc - r.encodeSeen))
		r.encodeSeen = enc
		if !r.pace.allow(now, r.share) {
			r.miss("capturing took more than its share of the game's time")
			return // past its share: the next capture holds every change since
		}
		if !r.encodePace.allow(now, encodeShare) {
			r.miss("coding took more than its share of a core")
			return
		}
	}
	r.take(now)
}

// take captures the world now and queues it for the encoder, with the
// frames missed since the last capture.
func (r *Recorder) take(now time.Time) {
	r.next = now.Add(r.period)
	started := time.Now()
	j := r.stream.capture()
	if r.audience != nil {
		j.to = r.audience()
	}
	if r.share > 0 {
		r.pace.spend(float64(time.Since(started)))
	}
	r.last = j.bytes
	j.skipped, j.skipWhy, r.missed, r.missWhy = r.missed, r.missWhy, 0, ""
	r.queued.Add(j.bytes)
	r.jobs <- j
}

// idleCopyLife is how long a lean stream (the in-memory ring) keeps its
// world copy with no frame coming: a copy that waits longer is let go,
// and the next frame is a keyframe.
const idleCopyLife = 2 * time.Second

func (r *Recorder) run() {
	var err error
	idle := time.NewTicker(recording.FlushEvery) // frames may stop (a paused game): flush anyway
	defer idle.Stop()
	lastFrame := time.Now()
	for {
		var job *worldJob
		var open bool
		select {
		case job, open = <-r.jobs:
		case <-r.closed:
			open = false
		case <-idle.C:
			if err == nil {
				err = r.w.Flush()
			}
			if r.stream.enc.Lean && time.Since(lastFrame) >= idleCopyLife {
				r.stream.enc.DropCopy() // captures come seldom: code the next as a keyframe rather than hold the copy till then
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
		f, err = r.stream.encode(job)
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
			if fs, ok := r.w.(feedSink); ok {
				fs.fanOut(f, job.to)
			} else if ms, ok := r.w.(marksSink); ok {
				err = ms.writeMarked(f, job.marks)
			} else {
				err = r.w.WriteWorld(f)
			}
		}
		r.queued.Add(-job.bytes)
		r.mu.Lock()
		r.written++
		r.bytes = r.w.Bytes()
		r.mu.Unlock()
	}
	if cerr := r.w.Close(); err == nil {
		err = cerr
	}
	r.stream.cap.Release() // the recording ended: its recycled capture memory goes now
	r.err = err
	close(r.done)
}

// Keyframe makes the next recorded frame a keyframe: a place review can
// jump to ({ }) and seek from. Keyframes come by themselves too (see
// PROTOCOL.md); this marks a moment.
func (r *Recorder) Keyframe() { r.stream.enc.RequestKeyframe() }

// Frames is how many frames the recorder has written.
func (r *Recorder) Frames() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}

// Skipped is how many frames were not recorded because the writer was
// behind (the game never waits for the disk).
func (r *Recorder) Skipped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// Bytes is how many bytes the recording holds so far.
func (r *Recorder) Bytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// Stop ends the recording, writing the index, and waits for the file to
// close; call it on the game goroutine. A recording of every frame ends
// with the world as Stop finds it, even when the frames just before were
// missed (they are counted in the file). A recording that already ended (a
// rewind ends it: a file's ticks never go backwards) is closed already:
// Stop then only reports its outcome. Stop may be called any number of
// times.
func (r *Recorder) Stop() error {
	if r.owed() && slices.Contains(r.a.recorders, r) {
		// An every-frame recording that missed the last frames ends with
		// the world it is stopped in: one capture past the queue's bound,
		// which Stop waits out with the rest.
		r.take(time.Now())
	}
	r.finish("")
	<-r.done
	if r.err != nil {
		return fmt.Errorf("inspector: recording: %w", r.err)
	}
	return nil
}

// Ended says why the recording ended by itself ("the game was rewound"),
// or "" while it runs or if Stop ended it.
func (r *Recorder) Ended() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.why
}

// finish is the one place a recording ends: it leaves the agent's list and
// its encoder is told no more frames come, once, whoever asks first.
func (r *Recorder) finish(why string) {
	r.ending.Do(func() {
		r.mu.Lock()
		r.why = why
		r.mu.Unlock()
		r.detach()
		close(r.jobs)
	})
}

// detach takes the recorder off the agent's list: Sync captures no more
// for it.
func (r *Recorder) detach() {
	a := r.a
	for i, x := range a.recorders {
		if x == r {
			a.recorders = append(a.recorders[:i], a.recorders[i+1:]...)
			break
		}
	}
	if len(a.recorders) == 0 {
		a.tel.recording.Store("")
	}
}

// end ends the recording without waiting for the file to close: for the
// game goroutine, which does not wait on a disk. Stop waits.
func (r *Recorder) end(why string) {
	r.finish(why)
	go func() {
		<-r.done
		if r.err != nil {
			r.a.logf("recording ended (%s): %v", why, r.err)
		}
	}()
}
