package record

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// stuckSink is a recording's destination that takes no frame until it is
// let go: an encoder or a disk far behind the game. It keeps the last
// frame it took.
type stuckSink struct {
	release chan struct{}
	mu      sync.Mutex
	last    protocol.WorldFrame
	skipped uint64 // the frames the frames taken say they left out
}

func (s *stuckSink) WriteWorld(f *protocol.WorldFrame) error {
	<-s.release
	s.mu.Lock()
	s.last = *f
	s.skipped += f.Skipped
	s.mu.Unlock()
	return nil
}
func (s *stuckSink) Flush() error { return nil }
func (s *stuckSink) Close() error { return nil }
func (s *stuckSink) Bytes() int64 { return 0 }

// TestStoppedRecordingEndsWithTheWorldStoppedIn: an every-frame recording
// whose encoder fell behind misses the last frames; stopped then, it
// takes the world once more, so the file ends with the world it was
// stopped in, and says how many frames it left out before.
func TestStoppedRecordingEndsWithTheWorldStoppedIn(t *testing.T) {
	w := ecs.NewWorld()
	energy := ecs.NewMap[float64](w)
	e := w.Spawn()
	must(t, energy.Add(e, 0))
	sink := &stuckSink{release: make(chan struct{})}
	r := testRecorder(w, sink, 0)
	r.Begin()
	const frames = 30 // past the encoder's queue of jobs
	for i := range frames {
		must(t, energy.Set(e, float64(i+1)))
		must(t, w.Tick())
		r.Capture(time.Now())
	}
	if r.Skipped() == 0 {
		t.Fatal("no frame missed with the destination stuck: the test needs some")
	}
	close(sink.release)
	must(t, r.Stop())
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if got := sink.last.Tick; got != w.Frame() {
		t.Fatalf("the recording ends at tick %d; it was stopped at tick %d", got, w.Frame())
	}
	if sink.skipped == 0 {
		t.Fatal("the frames missed are not counted in the file")
	}
}

// TestRecorderQueueIsBoundedInBytes records a world whose every row changes
// every frame into a destination that takes nothing: the captures waiting
// for it stay under the byte bound (a count alone let eight million-row
// copies pile up), the frames past it are counted as skipped, and the game
// never waits.
func TestRecorderQueueIsBoundedInBytes(t *testing.T) {
	type blob struct{ A, B, C, D, E, F, G, H uint64 }
	w := ecs.NewWorld()
	blobs := ecs.NewMap[blob](w)
	all := ecs.NewQuery1[blob](w, ecs.Mut[blob]())
	const n = 100_000 // 6.4 MB of values a capture
	for i := range n {
		e := w.Spawn()
		must(t, blobs.Add(e, blob{A: uint64(i)}))
	}
	sink := &stuckSink{release: make(chan struct{})}
	r := testRecorder(w, sink, 0)
	r.Begin()
	frames := 20
	for range frames {
		for v := range all.All() {
			v.A++
		}
		must(t, w.Tick())
		r.Capture(time.Now())
		if q := r.queued.Load(); q > recorderQueueBytes+r.last {
			t.Fatalf("%d bytes of captures wait for the encoder; the bound is %d", q, recorderQueueBytes)
		}
	}
	if r.Skipped() == 0 {
		t.Fatalf("no frame skipped with %d frames of 6.4 MB waiting on a stuck destination", frames)
	}
	close(sink.release)
	must(t, r.Stop())
}

// TestRingPacesItsCopies: a paced recorder's copies take their share of
// the game's time on average: asked every millisecond for a second, copies
// of 50,000 rows (far more than 1% of a millisecond each) are taken a few
// dozen times, after the burst its credit allows; unpaced, every time.
func TestRingPacesItsCopies(t *testing.T) {
	type blob struct{ A, B, C, D uint64 }
	w := ecs.NewWorld()
	blobs := ecs.NewMap[blob](w)
	for i := range 50_000 {
		must(t, blobs.Add(w.Spawn(), blob{A: uint64(i)}))
	}
	for _, paced := range []bool{true, false} {
		sink := &countingSink{}
		r := testRecorder(w, sink, 1000) // 1 ms apart
		if paced {
			r.Share = 0.01 // the ring's share
		}
		now := time.Now()
		r.Begin()
		for range 1000 {
			now = now.Add(time.Millisecond)
			r.Capture(now)
		}
		must(t, r.Stop())
		taken := sink.frames
		switch {
		case paced && (taken < 1 || taken > 200):
			t.Errorf("paced: %d copies taken of 1001 asked over a second, want at most a few dozen", taken)
		case !paced && taken+r.Skipped() < 999: // the first asked may come before the period after the first copy
			t.Errorf("unpaced: %d copies taken and %d skipped (the coder behind) of 1001 asked", taken, r.Skipped())
		}
	}
}

// countingSink counts the frames it is given.
type countingSink struct{ frames int }

func (s *countingSink) WriteWorld(*protocol.WorldFrame) error { s.frames++; return nil }
func (s *countingSink) Flush() error                          { return nil }
func (s *countingSink) Close() error                          { return nil }
func (s *countingSink) Bytes() int64                          { return 0 }

// testRecorder records w's frames into sink at hz (0: every frame).
func testRecorder(w *ecs.World, sink Sink, hz float64) *Recorder {
	summary := func(func(reflect.Value) protocol.Value) *protocol.Summary { return &protocol.Summary{Full: true} }
	return New(sink, NewStream(w, summary), hz, nil, Hooks{})
}

// must fails the test on an error from the code under test.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRingNeverFallsBehind: a recorder whose share of the game's time is
// spent (its captures dear) still takes one capture each Within: counted
// in ticks of a game at 100 Hz, its newest frame is never more than a
// second's ticks (100) behind, where, held to its share alone, it stopped
// after the first. (Its coder keeps up here: a coder behind skips
// captures too, bounded by its queue.)
func TestRingNeverFallsBehind(t *testing.T) {
	w := ecs.NewWorld()
	energy := ecs.NewMap[float64](w)
	e := w.Spawn()
	must(t, energy.Add(e, 0))
	sink := &countingSink{}
	r := testRecorder(w, sink, 100)
	r.Share, r.Within = 1e-9, time.Second // every capture costs more than the share allows
	r.Begin()                             // the first capture
	now := r.taken
	last, worst := w.Frame(), uint64(0)
	for range 1000 { // ten seconds of a 100 Hz game
		must(t, energy.Set(e, float64(w.Frame())))
		must(t, w.Tick())
		now = now.Add(10 * time.Millisecond)
		r.Capture(now)
		if r.taken.Equal(now) {
			last = w.Frame()
			for r.queued.Load() > 0 { // the coder keeps up, as it does at a game's pace
				time.Sleep(time.Millisecond)
			}
		}
		worst = max(worst, w.Frame()-last)
	}
	must(t, r.Stop())
	if worst > 100 {
		t.Fatalf("the newest capture fell %d ticks behind a 100 Hz game, over a second's 100", worst)
	}
	if sink.frames < 10 {
		t.Fatalf("%d frames in ten seconds, want one a second at least", sink.frames)
	}
}

// TestRingCountsItsCodingInItsShare: a recorder that is the agent's own
// upkeep (EncodeInShare) holds its copies and their coding together to
// its share of the game's time: with each frame's coding taking 50 ms (of
// its own clock here), asked every 10 ms for ten seconds, a 1% share allows
// a frame every few seconds; without it the coding is held only to its
// share of a core, and frames come several times a second.
func TestRingCountsItsCodingInItsShare(t *testing.T) {
	w := ecs.NewWorld()
	energy := ecs.NewMap[float64](w)
	must(t, energy.Add(w.Spawn(), 0))
	for _, inShare := range []bool{true, false} {
		sink := &countingSink{}
		r := testRecorder(w, sink, 100)
		r.Share, r.EncodeInShare = 0.01, inShare
		r.Begin()
		now := r.taken
		for range 1000 {
			now = now.Add(10 * time.Millisecond)
			before := r.taken
			r.Capture(now)
			if !r.taken.Equal(before) {
				for int64(r.Frames()) < r.work.captures.Load() { // the coder keeps up, as it does at a game's pace
					time.Sleep(time.Millisecond)
				}
				r.encodeNs.Add(int64(50 * time.Millisecond)) // as if coding the frame took 50 ms
			}
		}
		must(t, r.Stop())
		switch {
		case inShare && sink.frames > 8:
			t.Errorf("coding counted in the share: %d frames in ten seconds of 50 ms coding each, want at most a few", sink.frames)
		case !inShare && sink.frames < 30:
			t.Errorf("coding held to its share of a core only: %d frames in ten seconds, want dozens", sink.frames)
		}
	}
}
