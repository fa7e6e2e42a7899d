package ecs

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSchedulePanicReachesCaller: a system that panics in a parallel stage
// (on a worker goroutine or the caller's) is re-raised on the goroutine that
// called Run as a *SystemPanic naming it, after its sibling finished, and
// with the original stack; no later system runs.
func TestSchedulePanicReachesCaller(t *testing.T) {
	for _, parallel := range []bool{true, false} {
		for round := range 20 {
			w := NewWorld()
			s := NewSchedule()
			s.Parallel = parallel
			var siblingDone, lateRan atomic.Bool
			boom := errors.New("boom")
			s.Add("slow sibling", func(*World, *Commands) {
				time.Sleep(2 * time.Millisecond)
				siblingDone.Store(true)
			}, Writes[resA]())
			s.Add("exploder", func(*World, *Commands) { explode(boom) }, Writes[resB]())
			s.AddStage("late")
			s.Add("late", func(*World, *Commands) { lateRan.Store(true) })
			got := runRecovered(s, w)
			sp, ok := got.(*SystemPanic)
			if !ok {
				t.Fatalf("parallel=%v round %d: Run panicked with %T %v, want *SystemPanic", parallel, round, got, got)
			}
			if sp.System != "exploder" || !errors.Is(sp, boom) {
				t.Fatalf("panic names %q, value %v", sp.System, sp.Value)
			}
			if !strings.Contains(string(sp.Stack), "explode") {
				t.Fatalf("stack does not show where it panicked:\n%s", sp.Stack)
			}
			if !siblingDone.Load() {
				t.Fatal("Run re-raised the panic while a sibling system was still running")
			}
			if lateRan.Load() {
				t.Fatal("a later stage ran after a panic")
			}
			// The schedule is usable again (a game that recovers and goes on).
			if got := runRecovered(s, w); got == nil {
				t.Fatal("second run did not panic again")
			}
		}
	}
}

func explode(err error) { panic(err) }

func runRecovered(s *Schedule, w *World) (r any) {
	defer func() { r = recover() }()
	s.Run(w)
	return nil
}
