package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// stuckSink is a recording's destination that takes no frame until it is
// let go: an encoder or a disk far behind the game.
type stuckSink struct{ release chan struct{} }

func (s *stuckSink) WriteWorld(*protocol.WorldFrame) error { <-s.release; return nil }
func (s *stuckSink) Flush() error                          { return nil }
func (s *stuckSink) Close() error                          { return nil }
func (s *stuckSink) Bytes() int64                          { return 0 }

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
	a := New(w, Options{Addr: "127.0.0.1:0", RewindBytes: -1})
	defer func() { must(t, a.Close()) }()
	sink := &stuckSink{release: make(chan struct{})}
	r := a.startRecorder(sink, 0, nil)
	frames := 20
	for range frames {
		for v := range all.All() {
			v.A++
		}
		must(t, w.Tick())
		r.capture(time.Now())
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

// TestRingPacesItsCopies: at the default rate the in-memory recording
// stretches its period when a copy of the world takes more than its share
// of the game's time; a rate the game set is kept.
func TestRingPacesItsCopies(t *testing.T) {
	type blob struct{ A, B, C, D uint64 }
	w := ecs.NewWorld()
	blobs := ecs.NewMap[blob](w)
	for i := range 50_000 {
		must(t, blobs.Add(w.Spawn(), blob{A: uint64(i)}))
	}
	for _, paced := range []bool{true, false} {
		a := New(w, Options{Addr: "127.0.0.1:0", RewindBytes: -1})
		r := a.startRecorder(&stuckSink{release: make(chan struct{})}, 1000, nil) // 1 ms apart
		if paced {
			r.share = ringShare
		}
		now := r.next  // due: the first copy, at the start, set when
		r.capture(now) // a copy of 50,000 rows: far more than 1% of 1 ms
		gap := r.next.Sub(now)
		if paced && gap < 10*time.Millisecond || !paced && gap != time.Millisecond {
			t.Errorf("paced %v: the next copy %v after this one", paced, gap)
		}
		close(r.w.(*stuckSink).release)
		must(t, r.Stop())
		must(t, a.Close())
	}
}
