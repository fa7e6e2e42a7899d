package inspector

import (
	"fmt"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// WriteSnapshot saves the whole world to path as a one-frame .ecsrec
// recording. Call it on the game goroutine: it copies the world there (at
// memory speed) and converts, encodes and writes it on another goroutine.
// The returned channel yields the outcome once the file is written.
func (a *Agent) WriteSnapshot(path string) <-chan error {
	done := make(chan error, 1)
	tables, sparse := a.copyWorld()
	tick, stats, schemas := a.w.Frame(), a.w.Stats(), append([]protocol.Component(nil), a.componentSchemas()...)
	go func() {
		s := buildSnapshot(tables, sparse, tick, a.opts.Game, stats, schemas)
		done <- writeOneFrame(path, a.opts.Game, tick, s)
	}()
	return done
}

func writeOneFrame(path, game string, tick uint64, m protocol.Message) error {
	w, err := protocol.CreateRecording(path, game)
	if err != nil {
		return err
	}
	if err := w.Write(tick, time.Now(), true, m); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// PanicSnapshot is for deferring in the game loop: if the game panics, it
// writes a post-mortem snapshot to path, waits for the file, closes every
// recording the agent runs (so they end at the crash, whole), then panics
// again with the same value.
//
//	defer agent.PanicSnapshot("crash.ecsrec")
//
// A panic in a system run by ecs.Schedule, parallel or not, reaches it: the
// schedule re-raises it on the goroutine that called Run, as an
// *ecs.SystemPanic naming the system, after the systems running beside it
// returned, so the copy races nothing.
func (a *Agent) PanicSnapshot(path string) {
	r := recover()
	if r == nil {
		return
	}
	if err := <-a.WriteSnapshot(path); err != nil {
		a.logf("post-mortem snapshot: %v", err)
	} else {
		a.logf("post-mortem snapshot of tick %d written to %s", a.w.Frame(), path)
	}
	for len(a.recorders) > 0 {
		if err := a.recorders[0].Stop(); err != nil {
			a.logf("closing a recording after the panic: %v", err)
		}
	}
	panic(r)
}

// Recorder records the game's run to a file: summaries at a rate, a full
// summary every keyframe, and a snapshot at the start. It runs on the agent:
// captures happen in Sync, encoding and writing on the recorder's goroutine.
type Recorder struct {
	a       *Agent
	w       *protocol.RecordWriter
	period  time.Duration
	next    time.Time
	frames  chan recFrame
	done    chan error
	written int
	last    *protocol.Summary
	mu      sync.Mutex
}

type recFrame struct {
	tick uint64
	key  bool
	msg  protocol.Message
	snap func() protocol.Message
}

// Record starts recording the run to path at hz summaries per second (10
// if hz <= 0). Stop the recording with Recorder.Stop. Call it on the game
// goroutine (the first frame, a snapshot, is copied there).
func (a *Agent) Record(path string, hz float64) (*Recorder, error) {
	if hz <= 0 {
		hz = 10
	}
	w, err := protocol.CreateRecording(path, a.opts.Game)
	if err != nil {
		return nil, err
	}
	r := &Recorder{a: a, w: w, period: time.Duration(float64(time.Second) / hz), frames: make(chan recFrame, 64), done: make(chan error, 1)}
	tables, sparse := a.copyWorld()
	tick, stats, schemas := a.w.Frame(), a.w.Stats(), append([]protocol.Component(nil), a.componentSchemas()...)
	r.frames <- recFrame{tick: tick, key: true, snap: func() protocol.Message {
		return buildSnapshot(tables, sparse, tick, a.opts.Game, stats, schemas)
	}}
	go r.run()
	a.recorders = append(a.recorders, r)
	a.tel.recording.Store(path)
	return r, nil
}

// capture is the recorder's turn in Sync.
func (r *Recorder) capture(now time.Time) {
	if now.Before(r.next) {
		return
	}
	r.next = now.Add(r.period)
	s := r.a.summary()
	select {
	case r.frames <- recFrame{tick: s.Tick, msg: s}:
	default: // the disk is behind: skip a frame rather than hold the game
		r.a.tel.coalesced.Add(1)
	}
}

func (r *Recorder) run() {
	var err error
	n := 0
	idle := time.NewTicker(protocol.FlushEvery) // frames may stop (a paused game): flush anyway
	defer idle.Stop()
	for {
		var f recFrame
		var open bool
		select {
		case f, open = <-r.frames:
		case <-idle.C:
			if err == nil {
				err = r.w.Flush()
			}
			continue
		}
		if !open {
			break
		}
		if err != nil {
			continue
		}
		m, key := f.msg, f.key
		if f.snap != nil {
			m = f.snap()
		} else if s, ok := m.(*protocol.Summary); ok {
			key = r.last == nil || n%keyframeEvery == 0
			if !key {
				m = protocol.DiffSummary(r.last, s)
			}
			r.last = s
			n++
		}
		err = r.w.Write(f.tick, time.Now(), key, m)
		r.mu.Lock()
		r.written++
		r.mu.Unlock()
	}
	if cerr := r.w.Close(); err == nil {
		err = cerr
	}
	r.done <- err
}

// keyframeEvery is how many recorded summaries make one keyframe interval.
const keyframeEvery = 50

// Frames is how many frames the recorder has written.
func (r *Recorder) Frames() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}

// Stop ends the recording, writing the index; call it on the game goroutine.
func (r *Recorder) Stop() error {
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
	close(r.frames)
	if err := <-r.done; err != nil {
		return fmt.Errorf("inspector: recording: %w", err)
	}
	return nil
}
