package ecs

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// A SystemEnd that asks to halt stops the frame before any later system
// that conflicts and before the stage's commands: Halted sees the value the
// system wrote on an entity that a later command despawns, with no system
// running; the frame then finishes as it would have.
func TestHaltStopsTheFrameAtTheWrite(t *testing.T) {
	type Energy struct{ V float64 }
	for _, parallel := range []bool{false, true} {
		w := NewWorld()
		em := NewMap[Energy](w)
		victim, other := w.Spawn(), w.Spawn()
		must(t, em.Add(victim, Energy{V: 10}))
		must(t, em.Add(other, Energy{V: 10}))
		var running atomic.Int32
		body := func(f func(*World, *Commands)) SystemFunc {
			return func(w *World, c *Commands) {
				running.Add(1)
				defer running.Add(-1)
				f(w, c)
			}
		}
		s := NewSchedule()
		s.Parallel = parallel
		s.Add("graze", body(func(*World, *Commands) {
			if v := em.Get(victim); v != nil {
				v.V = -40
			}
		}), Writes[Energy]())
		s.Add("hunger", body(func(*World, *Commands) {
			for _, e := range []Entity{victim, other} {
				if v := em.Get(e); v != nil {
					v.V--
				}
			}
		}), Writes[Energy]())
		s.Add("death", body(func(w *World, c *Commands) {
			if w.Alive(victim) {
				c.Despawn(victim)
			}
		}), Reads[Energy]())
		s.Add("idle", body(func(*World, *Commands) {}))
		s.SystemEnd = func(w *World, run SystemRun) {
			if run.Name == "graze" {
				run.Halt()
			}
		}
		var halts []Halt
		s.Halted = func(w *World, at Halt) {
			if n := running.Load(); n != 0 {
				t.Errorf("parallel=%v: halted with %d systems running", parallel, n)
			}
			if !w.Alive(victim) {
				t.Errorf("parallel=%v: the stage's commands applied before the halt", parallel)
			}
			if v := em.Get(victim).V; v != -40 {
				t.Errorf("parallel=%v: the halt sees %v, want graze's -40", parallel, v)
			}
			// While halted, workers woken meanwhile start nothing.
			for range 2000 {
				runtime.Gosched()
				if running.Load() != 0 || em.Get(victim).V != -40 {
					t.Errorf("parallel=%v: a system ran during the halt", parallel)
					break
				}
			}
			halts = append(halts, at)
		}
		s.Run(w)
		if len(halts) != 1 {
			t.Fatalf("parallel=%v: %d halts, want 1", parallel, len(halts))
		}
		h := halts[0]
		if h.Asked != "graze" || h.Stage != "update" || h.Systems != 4 || !slices.Contains(h.Ran, "graze") || slices.Contains(h.Ran, "hunger") {
			t.Fatalf("parallel=%v: halt %+v", parallel, h)
		}
		if !parallel && !slices.Equal(h.Ran, []string{"graze"}) {
			t.Fatalf("sequential: halted after %v, want right after graze", h.Ran)
		}
		if w.Alive(victim) || em.Get(other).V != 9 {
			t.Fatalf("parallel=%v: the frame did not finish after the halt", parallel)
		}
		s.SystemEnd = nil // a frame that asks nothing does not halt
		s.Run(w)
		if len(halts) != 1 {
			t.Fatalf("parallel=%v: halted without being asked", parallel)
		}
	}
}

// StageEnd runs after each stage's commands applied, in stage order.
func TestStageEndSeesTheStagesCommands(t *testing.T) {
	w := NewWorld()
	s := NewSchedule()
	var victim Entity
	s.Add("spawner", func(w *World, c *Commands) { victim = c.Spawn() })
	s.AddStage("late")
	s.Add("idle", func(*World, *Commands) {})
	var seen []string
	s.StageEnd = func(w *World, stage string) {
		seen = append(seen, stage+":"+map[bool]string{true: "alive", false: "unborn"}[w.Alive(victim)])
	}
	s.Run(w)
	if !slices.Equal(seen, []string{"update:alive", "late:alive"}) {
		t.Fatalf("StageEnd saw %v", seen)
	}
}
