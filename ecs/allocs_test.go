package ecs

import (
	"runtime"
	"sync"
	"testing"
)

// bigSink keeps allocations alive past the system that made them.
var bigSink [][]byte

// TestSystemsAllocationsAreTheirs: with TrackAllocs, a system that
// allocates 64 blocks of 64 KiB a run shows them (large blocks are counted
// at once, so the mean is exact to the block) while one that allocates
// nothing beside it shows far less; two systems of a parallel stage that
// run at once (each waits for the other) are counted as shared; off,
// nothing is measured.
func TestSystemsAllocationsAreTheirs(t *testing.T) {
	w := NewWorld()
	s := NewSchedule()
	s.Parallel = false
	s.TrackAllocs = true
	s.Add("allocator", func(*World, *Commands) {
		bigSink = bigSink[:0]
		for range 64 {
			bigSink = append(bigSink, make([]byte, 64<<10))
		}
	})
	s.Add("idle", func(*World, *Commands) {})
	for range 20 {
		s.Run(w)
	}
	by := map[string]SystemInfo{}
	for _, si := range s.Systems() {
		by[si.Name] = si
	}
	a, idle := by["allocator"], by["idle"]
	if a.AllocRuns != 20 || a.AllocShared != 0 || a.AllocBytes < 64*64<<10 || a.AllocObjects < 64 {
		t.Fatalf("the allocator: %.0f bytes, %.0f objects a run over %d runs (%d shared); want at least 4 MiB and 64", a.AllocBytes, a.AllocObjects, a.AllocRuns, a.AllocShared)
	}
	if idle.AllocRuns != 20 || idle.AllocBytes > a.AllocBytes/16 {
		t.Fatalf("the idle system is charged %.0f bytes a run over %d runs", idle.AllocBytes, idle.AllocRuns)
	}

	if s.AllocReadCost() <= 0 {
		t.Fatalf("40 runs read their allocations, yet the reads' cost is %v", s.AllocReadCost())
	}

	off := NewSchedule()
	off.Add("allocator", func(*World, *Commands) { bigSink = append(bigSink[:0], make([]byte, 1<<20)) })
	off.Run(w)
	if si := off.Systems()[0]; si.AllocRuns+si.AllocShared != 0 || off.AllocReadCost() != 0 {
		t.Fatalf("TrackAllocs off, yet %d runs measured, reads costing %v", si.AllocRuns+si.AllocShared, off.AllocReadCost())
	}

	if debugChecks {
		return // a debug build runs a stage's systems one at a time: none runs beside another
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := NewSchedule()
	p.TrackAllocs = true
	var meet sync.WaitGroup
	both := func(*World, *Commands) { meet.Done(); meet.Wait() } // returns once both run
	p.Add("left", both, Writes[Position]())
	p.Add("right", both, Writes[Health]())
	for range 3 {
		meet.Add(2)
		p.Run(w)
	}
	// The hook sees it too: neither ran alone.
	var alone []bool
	var mu sync.Mutex
	p.SystemEnd = func(_ *World, run SystemRun) { mu.Lock(); alone = append(alone, run.Alone); mu.Unlock() }
	meet.Add(2)
	p.Run(w)
	if len(alone) != 2 || alone[0] || alone[1] {
		t.Fatalf("SystemRun.Alone of two systems that ran at once: %v", alone)
	}
	for _, si := range p.Systems() {
		if si.AllocShared != 4 || si.AllocRuns != 0 {
			t.Fatalf("%s ran beside another: %d runs shared, %d its own; want 4 and 0", si.Name, si.AllocShared, si.AllocRuns)
		}
	}

}

// TestAStageInOrderStartsNoWorkers: a stage whose every two systems
// conflict (here, each applies its commands as it ends) runs them in order
// on the goroutine that called Run, starting no worker goroutine for it.
func TestAStageInOrderStartsNoWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	w := NewWorld()
	s := NewSchedule()
	me := goroutineID()
	var elsewhere, most int
	for _, name := range []string{"a", "b", "c"} {
		s.Add(name, func(*World, *Commands) {
			if goroutineID() != me {
				elsewhere++
			}
			most = max(most, runtime.NumGoroutine())
		}, Writes[Position](), CommandsNow())
	}
	before := runtime.NumGoroutine()
	for range 30 {
		s.Run(w)
	}
	if elsewhere != 0 || most > before {
		t.Fatalf("a stage that runs in order: %d of 90 runs on a worker, %d goroutines during them, %d before", elsewhere, most, before)
	}
}
