package ecs

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type (
	resA struct{}
	resB struct{}
	resC struct{}
)

// TestScheduleConflictsNeverOverlap runs a stage where some systems conflict
// and checks, 1,000 times, that conflicting ones never run at once and keep
// registration order, while independent ones may overlap.
func TestScheduleConflictsNeverOverlap(t *testing.T) {
	type spec struct {
		name   string
		access []Access
	}
	specs := []spec{
		{"writeA", []Access{Writes[resA]()}},
		{"readA1", []Access{Reads[resA]()}},
		{"writeB", []Access{Writes[resB]()}},
		{"readA2", []Access{Reads[resA]()}},
		{"writeA2", []Access{Writes[resA](), Reads[resB]()}},
		{"free", nil},
		{"writeC", []Access{Writes[resC]()}},
		{"readBC", []Access{Reads[resB](), Reads[resC]()}},
	}
	conflict := func(i, j int) bool {
		a := &system{}
		b := &system{}
		for _, x := range specs[i].access {
			if x.write {
				a.writes = append(a.writes, x.typ)
			} else {
				a.reads = append(a.reads, x.typ)
			}
		}
		for _, x := range specs[j].access {
			if x.write {
				b.writes = append(b.writes, x.typ)
			} else {
				b.reads = append(b.reads, x.typ)
			}
		}
		return a.conflicts(b)
	}
	w := NewWorld()
	s := NewSchedule()
	var mu sync.Mutex
	var running []bool
	var order []int
	var violations atomic.Int32
	running = make([]bool, len(specs))
	for i, sp := range specs {
		s.Add(sp.name, func(*World, *Commands) {
			mu.Lock()
			for j, r := range running {
				if r && conflict(i, j) {
					violations.Add(1)
				}
			}
			running[i] = true
			order = append(order, i)
			mu.Unlock()
			time.Sleep(time.Microsecond)
			mu.Lock()
			running[i] = false
			mu.Unlock()
		}, sp.access...)
	}
	for range 1000 {
		order = order[:0]
		s.Run(w)
		if len(order) != len(specs) {
			t.Fatalf("ran %d systems", len(order))
		}
		pos := make([]int, len(specs))
		for p, i := range order {
			pos[i] = p
		}
		for i := range specs {
			for j := i + 1; j < len(specs); j++ {
				if conflict(i, j) && pos[i] > pos[j] {
					t.Fatalf("%s ran before %s, which it conflicts with and follows", specs[j].name, specs[i].name)
				}
			}
		}
	}
	if v := violations.Load(); v != 0 {
		t.Fatalf("%d times two conflicting systems ran at once", v)
	}
	infos := s.Systems()
	if len(infos) != len(specs) || infos[0].Count != 1000 || infos[0].Mean <= 0 || len(infos[0].Recent) != timingWindow ||
		!slices.Equal(infos[4].Writes, []string{"resA"}) || !slices.Equal(infos[4].Reads, []string{"resB"}) {
		t.Errorf("Systems()[0] = %+v, [4] = %+v", infos[0], infos[4])
	}
}

func TestScheduleStagesAndCommands(t *testing.T) {
	w := NewWorld()
	w.Inspect().EnableJournal(16)
	pos := NewMap[Position](w)
	var seenInLate int
	s := NewSchedule()
	s.Add("spawner", func(w *World, c *Commands) {
		AddLater(c, c.Spawn(), Position{X: 1})
	}, Writes[Position]())
	s.Add("direct", func(w *World, c *Commands) {
		defer func() {
			if recover() == nil {
				t.Error("a direct spawn during a parallel stage did not panic")
			}
		}()
		w.Spawn()
	})
	s.AddStage("late")
	s.Add("counter", func(w *World, c *Commands) { seenInLate = pos.Len() }, Reads[Position]())
	s.Run(w)
	if seenInLate != 1 {
		t.Errorf("the late stage saw %d entities, want the spawner's 1", seenInLate)
	}
	if j := w.Inspect().Journal(); len(j) == 0 || j[0].System != "spawner" {
		t.Errorf("journal = %+v", j)
	}
	s.Parallel = false
	s.Run(w) // sequential: the direct spawn is refused all the same
	if pos.Len() != 2 {
		t.Errorf("Len = %d", pos.Len())
	}
}

// TestSkippedCommandsAreCounted: commands a system queues that cannot be
// carried out (a remove of a component the entity lacks, a set on an
// entity despawned first) are counted for that system, with the newest
// reasons, and nothing fails silently; PanicOnSkipped stops at the first.
func TestSkippedCommandsAreCounted(t *testing.T) {
	w := NewWorld()
	hp := NewMap[Health](w)
	ComponentIDOf[Position](w)
	e, gone := w.Spawn(), w.Spawn()
	must(t, hp.Add(e, Health{HP: 1}))
	s := NewSchedule()
	s.Add("careless", func(w *World, c *Commands) {
		RemoveLater[Position](c, e) // e has no Position
		c.Despawn(gone)
		SetLater(c, gone, Health{HP: 2}) // despawned by the command before
	})
	s.Add("tidy", func(w *World, c *Commands) {})
	s.Run(w)
	s.Run(w) // gone is gone: its despawn is skipped too
	var careless, tidy SystemInfo
	for _, in := range s.Systems() {
		switch in.Name {
		case "careless":
			careless = in
		case "tidy":
			tidy = in
		}
	}
	if careless.Skipped != 5 || tidy.Skipped != 0 {
		t.Fatalf("skipped: careless %d (want 2 then 3), tidy %d", careless.Skipped, tidy.Skipped)
	}
	why := fmt.Sprint(careless.SkippedWhy)
	if len(careless.SkippedWhy) != 4 || !strings.Contains(why, "has no Position to remove") || !strings.Contains(why, "1v1 is stale") {
		t.Fatalf("the newest reasons: %+v", careless.SkippedWhy)
	}
	s.PanicOnSkipped = true
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "careless") {
			t.Fatalf("PanicOnSkipped: %v", r)
		}
	}()
	s.Run(w)
}

// TestCommandsNowIsSeenByTheNextSystem: a system declared with
// CommandsNow has its structural changes applied as it ends, so the next
// system of the same stage sees them in the same frame; without it they
// wait for the stage's end. Both in parallel and sequential schedules.
func TestCommandsNowIsSeenByTheNextSystem(t *testing.T) {
	for _, parallel := range []bool{true, false} {
		for _, now := range []bool{true, false} {
			w := NewWorld()
			hp := NewMap[Health](w)
			counted := NewQuery1[Health](w)
			s := NewSchedule()
			s.Parallel = parallel
			access := []Access{Writes[Health]()}
			if now {
				access = append(access, CommandsNow())
			}
			s.Add("spawner", func(_ *World, c *Commands) { AddLater(c, c.Spawn(), Health{HP: 1}) }, access...)
			seen := -1
			s.Add("counter", func(*World, *Commands) { seen = counted.Count() }, Reads[Health]())
			s.Add("bystander", func(*World, *Commands) {}, Reads[Position]())
			s.Run(w)
			if want := map[bool]int{true: 1, false: 0}[now]; seen != want {
				t.Fatalf("parallel %v, CommandsNow %v: the next system saw %d spawned, want %d", parallel, now, seen, want)
			}
			if n := hp.Len(); n != 1 {
				t.Fatalf("after the frame %d entities have Health", n)
			}
		}
	}
}

// TestUndeclaredSystemRunsAlone: a system that declared no access may
// touch anything, so no system of its stage runs beside it, on any number
// of processors; one that declared its access runs beside another that
// does not conflict. Each system waits a while for the other to start
// (50 ms where none may, up to 10 s where it must, on a busy machine): one
// that starts while the first waits ran beside it.
func TestUndeclaredSystemRunsAlone(t *testing.T) {
	type A struct{ V int }
	type B struct{ V int }
	beside := func(patience time.Duration, access ...Access) bool {
		w := NewWorld()
		NewMap[A](w)
		NewMap[B](w)
		var running, met atomic.Int32
		wait := func(*World, *Commands) {
			if running.Add(1) > 1 {
				met.Store(1)
			}
			for end := time.Now().Add(patience); time.Now().Before(end) && met.Load() == 0; {
				time.Sleep(time.Millisecond)
			}
			running.Add(-1)
		}
		s := NewSchedule()
		s.Add("writes A", wait, Writes[A]())
		s.Add("the other", wait, access...)
		s.Run(w)
		return met.Load() == 1
	}
	if beside(50 * time.Millisecond) {
		t.Fatal("a system that declared nothing ran beside another")
	}
	if runtime.GOMAXPROCS(0) > 1 && !debugChecks && !beside(10*time.Second, Writes[B]()) { // a debug build runs a stage in order
		t.Fatal("two systems writing different components did not run beside each other")
	}
}
