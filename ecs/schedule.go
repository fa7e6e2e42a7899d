package ecs

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"time"
)

// SystemFunc is a system: one step of game logic over a world. Structural
// changes go through cmds, applied at the end of the system's stage, in
// registration order; reading and writing component values is direct.
type SystemFunc func(w *World, cmds *Commands)

// Access declares a type a system reads or writes: a component, a resource,
// or an event type. The schedule runs two systems at once only if neither
// writes what the other reads or writes.
type Access struct {
	typ   reflect.Type
	write bool
	now   bool // CommandsNow
}

// CommandsNow has the schedule apply the system's structural changes (its
// command buffer) as soon as it ends, rather than at the end of its stage,
// so the systems registered after it in the same stage see them: for a
// port whose systems rely on running in order and seeing each other's
// spawns, despawns and component switches. Such a system runs alone: the
// systems before it in its stage finish first, those after it start once
// its changes are applied; systems that do not declare it still run in
// parallel with each other around it. (The other way to order changes is
// a stage of its own: [Schedule.AddStage].)
func CommandsNow() Access { return Access{now: true} }

// Reads declares that a system reads T.
func Reads[T any]() Access { return Access{typ: reflect.TypeFor[T]()} }

// Writes declares that a system writes T (writing includes reading).
func Writes[T any]() Access { return Access{typ: reflect.TypeFor[T](), write: true} }

// Schedule runs systems in stages. Within a stage, systems that do not
// conflict run in parallel; conflicting ones run in registration order.
// Between stages, and at the end, each system's command buffer is applied.
//
//	s := ecs.NewSchedule()
//	s.Add("movement", move, ecs.Reads[Velocity](), ecs.Writes[Position]())
//	s.Add("hunger", hunger, ecs.Writes[Energy]())
//	s.AddStage("late")
//	s.Add("death", death, ecs.Reads[Energy]())
//	for running { s.Run(w); w.Tick() }
type Schedule struct {
	stages []*stage
	// Parallel lets non-conflicting systems run at once (the default); false
	// runs every system in registration order on the calling goroutine.
	Parallel bool
	// SystemEnd, if set, is called right after each run of a system, on
	// the goroutine that ran it, before any system that conflicts with it
	// starts and before the stage's commands apply: the moment a debugger
	// looks at what the system wrote. Systems of a parallel stage may end
	// at once: it may then run on several goroutines at the same time, and
	// may read only the components the system declared it writes (which
	// nothing running beside it touches) and the world's structure.
	SystemEnd func(w *World, run SystemRun)
	// RunStart, if set, is called at the start of each Run, on its
	// goroutine: with SystemEnd, a debugger sees what was written before
	// the systems (by the game's own code, by tools) apart from what each
	// system wrote.
	RunStart func(w *World)
	// Halted, if set, is called when a SystemEnd asked to halt
	// ([SystemRun.Halt]): on the goroutine that called Run, once no system
	// runs, before any system of the stage that has not started and before
	// the stage's commands apply (halt.go). The frame goes on when it
	// returns.
	Halted func(w *World, at Halt)
	// StageEnd, if set, is called on the goroutine that called Run after
	// each stage's commands applied: with SystemEnd, a debugger looks at
	// a value after every run that may have changed it.
	StageEnd func(w *World, stage string)
	// PanicOnSkipped panics at the end of a stage as soon as one command a
	// system queued could not be carried out (a remove of a component the
	// entity lacks, a change to an entity despawned first), naming the
	// system and why. Off, skipped commands are counted per system
	// (SystemInfo.Skipped) and the newest reasons kept, which the
	// inspector shows; set it in a debug build to stop at the first.
	PanicOnSkipped bool
	// TrackAllocs has each system's run read what it allocated (bytes and
	// objects, from runtime/metrics: 0.6 to 9 us a run, AllocReadCost), kept with its
	// timings (SystemInfo.AllocBytes); a run beside another system of a
	// parallel stage is counted as shared, attributed to neither. Set it
	// before Run; the inspector's agent sets it for the frames it samples.
	TrackAllocs bool

	halt     haltState
	readCost readCost // what TrackAllocs's reads take (allocs.go)
}

// AllocReadCost is what TrackAllocs costs a system's run, as measured on
// the runs it was on for (0 before any): a game that samples its
// allocations now and then keeps the reads to a share of its work.
func (s *Schedule) AllocReadCost() time.Duration { return 2 * s.readCost.mean() }

// SystemRun is one run of a system, as [Schedule.SystemEnd] sees it.
type SystemRun struct {
	Name string
	// Writes lists the components the system declared it writes; nil if
	// it declared no access (it then runs alone).
	Writes []ComponentID
	// WriteTypes lists the types it declared it writes, resources
	// included (Writes[T] of a resource's type); nil with Writes.
	WriteTypes []reflect.Type
	// Since is the change stamp before the run: what it wrote is newer
	// (pass it as a Filter's Since, or to Inspection.ChangedSince).
	Since uint32
	// Alone says no other system of its stage ran while it did, as it
	// ends: what changed during the run was its doing (or the game's other
	// goroutines'). False in a parallel stage where another ran beside it.
	Alone bool

	sched *Schedule // for Halt
}

type stage struct {
	name    string
	systems []*system
	planned int     // systems the dependency plan covers
	chain   bool    // every two of its systems conflict: they run in order (serial)
	indeg   []int32 // per system: earlier systems it waits for
	after   [][]int // per system: later systems waiting for it
	height  []int   // per system: the longest chain of systems from it to the end

	// scratch for a run
	mu      sync.Mutex
	wake    *sync.Cond
	pending []int32
	ready   []int
	left    int
	running int          // systems running now
	started uint64       // systems started, counted for telling a run alone (allocs.go)
	caught  *SystemPanic // the first panic of this run
	sched   *Schedule    // for a halt between its systems
}

type system struct {
	name   string
	stage  string
	fn     SystemFunc
	reads  []reflect.Type
	writes []reflect.Type
	cmds   *Commands
	cmdsOf *World
	// declaredAt is how many components the world had when the system's
	// writes were declared to it (writers.go); writeComps are those writes.
	declaredAt int
	writeComps []ComponentID
	sched      *Schedule // for its SystemEnd
	timing     timing
	allocs     allocs // what its runs allocated, with TrackAllocs
	skips      skips  // commands it queued that could not be carried out
	now        bool   // its commands apply as it ends (CommandsNow)
	// st is its stage; soloAtStart and mark, set as a worker takes it,
	// say whether it started alone and the stage's count of starts then,
	// for telling a run alone (SystemRun.Alone, allocs.go).
	st          *stage
	soloAtStart bool
	mark        uint64
	// on is the goroutine a parallel stage runs it on, when the stale
	// audit is on (0: run alone, told by being alone): set by the worker
	// that takes it, read once per worker, not per system.
	on uint64
}

// NewSchedule returns an empty schedule with one stage, "update", that runs
// systems in parallel where it can.
func NewSchedule() *Schedule {
	s := &Schedule{Parallel: true}
	s.stages = []*stage{{name: "update", sched: s}}
	return s
}

// AddStage starts a new stage; systems added after it run after every
// system added before it, and after their commands are applied.
func (s *Schedule) AddStage(name string) {
	s.stages = append(s.stages, &stage{name: name, sched: s})
}

// Add registers a system in the current (last) stage.
func (s *Schedule) Add(name string, fn SystemFunc, access ...Access) {
	st := s.stages[len(s.stages)-1]
	sys := &system{name: name, stage: st.name, fn: fn, sched: s, st: st, soloAtStart: true}
	for _, a := range access {
		if a.now {
			sys.now = true
			continue
		}
		if a.write {
			sys.writes = append(sys.writes, a.typ)
		} else {
			sys.reads = append(sys.reads, a.typ)
		}
	}
	st.systems = append(st.systems, sys)
}

// Run runs every stage in order on w. If a system panics, Run panics on the
// calling goroutine with a [*SystemPanic] naming it, once the systems
// running beside it have returned; later systems and stages do not run, and
// the stage's commands are not applied.
func (s *Schedule) Run(w *World) {
	if s.RunStart != nil {
		s.RunStart(w)
	}
	s.halt.mu.Lock()
	s.halt.ran, s.halt.want, s.halt.asked = s.halt.ran[:0], false, ""
	s.halt.mu.Unlock()
	for _, st := range s.stages {
		for _, sys := range st.systems { // buffers made here, not by systems running at once
			if sys.cmdsOf != w {
				sys.cmds, sys.cmdsOf, sys.declaredAt = w.NewCommands(sys.name), w, -1
			}
			if n := len(w.reg.regs); sys.declaredAt != n { // components registered since: look again
				sys.declaredAt = n
				if sys.writeComps = sys.writeIDs(w); sys.writeComps != nil {
					w.declareWrites(sys.cmds.owner, sys.writeComps)
				}
			}
		}
		// Systems change the world's structure through their command
		// buffers only, in either mode, so a system written for one mode
		// works in the other.
		w.inSystems.Add(1)
		var caught *SystemPanic
		// A debug build runs a stage one system at a time, each checked for
		// undeclared writes; so does a game on one processor, where the
		// workers' bookkeeping would buy nothing.
		if s.Parallel && len(st.systems) > 1 && !st.serial() && !debugChecks && runtime.GOMAXPROCS(0) > 1 {
			caught = st.runParallel(w)
		} else {
			for _, sys := range st.systems {
				sys.soloAtStart, sys.mark = true, st.started // alone: no other runs
				caught = sys.step(w)
				sys.allocs.note(true)
				if caught != nil {
					break
				}
				s.halted(w, st)
			}
		}
		w.inSystems.Add(-1)
		if caught != nil {
			panic(caught)
		}

		for _, sys := range st.systems {
			sys.applyCommands(w)
		}
		if s.StageEnd != nil {
			s.StageEnd(w, st.name)
		}
	}
}

// run runs the system once, its writes attributed to it (writers.go).
func (sys *system) run(w *World) {
	from := w.openWrites()
	w.runStarted(sys.cmds.owner, sys.on)
	start := monoNow()
	ended := false
	defer func() {
		if !ended { // a panicking system is not running any more
			w.runEnded(sys.cmds.owner)
		}
	}()
	track := sys.sched.TrackAllocs
	if track {
		sys.allocs.start(&sys.sched.readCost)
	}
	sys.fn(w, sys.cmds)
	if track {
		sys.allocs.stop(&sys.sched.readCost)
	}
	sys.timing.record(monoNow() - start)
	w.closeRun(from, sys.cmds.owner)
	ended = true
	sys.sched.ended(sys.name)
	if end := sys.sched.SystemEnd; end != nil {
		run := SystemRun{Name: sys.name, Writes: sys.writeComps, Since: from - 1, Alone: sys.alone(), sched: sys.sched}
		if sys.writeComps != nil {
			run.WriteTypes = sys.writes
		}
		end(w, run)
	}
}

// monoNow is the monotonic clock as a duration since the process began:
// one read of the clock, where time.Now reads the wall clock too (a
// system's run is timed twice a frame, and on some machines each read is a
// system call).
func monoNow() time.Duration { return time.Since(processStart) }

// processStart is where monoNow counts from.
var processStart = time.Now()

// alone reports whether no other system of its stage has run beside this
// run so far: it started alone and none started since. A stage run in
// order (not Parallel, one system, a debug build) runs each alone.
func (sys *system) alone() bool {
	st := sys.st
	if st == nil {
		return true
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return sys.soloAtStart && st.started == sys.mark
}

// step runs the system once (checked for undeclared writes in debug
// builds) and, declared with CommandsNow, applies its commands as it ends.
func (sys *system) step(w *World) *SystemPanic {
	run := sys.runCaught
	if debugChecks {
		run = sys.runChecked
	}
	if caught := run(w); caught != nil || !sys.now {
		return caught
	}
	// It runs alone: no other system of its stage runs now, so its changes
	// may apply as between stages.
	w.inSystems.Add(-1)
	defer w.inSystems.Add(1)
	return sys.catch(func() { sys.applyCommands(w) })
}

// applyCommands applies what the system queued, counting what was skipped
// (or panicking at it, with Schedule.PanicOnSkipped).
func (sys *system) applyCommands(w *World) {
	if sys.cmds == nil || sys.cmds.Len() == 0 {
		return
	}
	if n, _, errs := sys.cmds.apply(); n > 0 {
		sys.skips.note(n, errs, w.frame)
		if sys.sched.PanicOnSkipped {
			panic(fmt.Sprintf("ecs: %d commands queued by system %s were skipped (Schedule.PanicOnSkipped): %v", n, sys.name, errors.Join(errs...)))
		}
	}
}

// conflicts reports whether a and b may not run at once: one applies its
// changes as it ends (CommandsNow), one declared no access (it may touch
// anything, so it runs alone, and a tool looking at what it wrote as it
// ends reads nothing another system is writing), or one writes what the
// other reads or writes.
func (a *system) conflicts(b *system) bool {
	overlap := func(x, y []reflect.Type) bool {
		for _, t := range x {
			for _, u := range y {
				if t == u {
					return true
				}
			}
		}
		return false
	}
	return a.now || b.now || a.undeclared() || b.undeclared() || overlap(a.writes, b.writes) || overlap(a.writes, b.reads) || overlap(a.reads, b.writes)
}

// undeclared reports whether the system declared no reads and no writes.
func (sys *system) undeclared() bool { return len(sys.reads) == 0 && len(sys.writes) == 0 }

// plan computes, once, which systems wait for which.
func (st *stage) plan() {
	n := len(st.systems)
	st.indeg = make([]int32, n)
	st.after = make([][]int, n)
	for j := range n {
		for i := range j {
			if st.systems[i].conflicts(st.systems[j]) {
				st.after[i] = append(st.after[i], j)
				st.indeg[j]++
			}
		}
	}
	st.height = make([]int, n)
	for i := n - 1; i >= 0; i-- {
		st.height[i] = 1
		for _, j := range st.after[i] {
			st.height[i] = max(st.height[i], 1+st.height[j])
		}
	}
	st.pending = make([]int32, n)
	st.ready = make([]int, 0, n)
	st.wake = sync.NewCond(&st.mu)
	st.planned = n
	// A stage whose every two systems conflict (CommandsNow ones, a chain
	// of writes) runs them one after another whatever the workers: it is
	// run in order, with no worker to start and wake.
	pairs := 0
	for _, d := range st.indeg {
		pairs += int(d)
	}
	st.chain = pairs == n*(n-1)/2
}

// serial reports whether the stage's systems can only run one at a time
// (every two conflict), planning it first if need be.
func (st *stage) serial() bool {
	if st.planned != len(st.systems) {
		st.plan()
	}
	return st.chain
}

// runParallel runs the stage's systems on up to GOMAXPROCS goroutines (the
// caller's included), each system once all earlier conflicting ones are done.
// Of the systems ready, a worker takes the one heading the longest chain of
// systems waiting on it, so the critical path starts first. A system's panic
// is caught on its worker: no system starts after it, the ones running are
// waited for, and the first panic is returned.
func (st *stage) runParallel(w *World) *SystemPanic {
	if st.planned != len(st.systems) {
		st.plan()
	}
	n := len(st.systems)
	st.ready = st.ready[:0]
	for i, d := range st.indeg {
		st.pending[i] = d
		if d == 0 {
			st.ready = append(st.ready, i)
		}
	}
	st.left, st.running, st.caught = n, 0, nil
	defer func() {
		for _, sys := range st.systems {
			sys.on = 0
		}
	}()
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) - 1 {
		wg.Go(func() { st.work(w, false) })
	}
	st.work(w, true)
	wg.Wait()
	caught := st.caught
	st.caught = nil
	return caught
}

// work runs ready systems until every system of the stage has run. The
// caller's worker (the goroutine that called Run) takes a halt a system
// asked for, once none runs; until then no worker starts a system.
func (st *stage) work(w *World, caller bool) {
	var on uint64 // this worker's goroutine, for the stale audit: asked once, and only once a stale use was made beside another system
	if w.stale.on.Load() && w.stale.goroutines.Load() {
		on = goroutineID()
	}
	st.mu.Lock()
	for {
		halting := st.sched.wantsHalt() && st.caught == nil
		if halting && caller && st.running == 0 {
			st.mu.Unlock()
			st.sched.halted(w, st)
			st.mu.Lock()
			st.wake.Broadcast()
			continue
		}
		if st.left == 0 || (st.caught != nil && st.running == 0) {
			st.wake.Broadcast()
			st.mu.Unlock()
			return
		}
		if len(st.ready) == 0 || st.caught != nil || halting {
			st.wake.Wait()
			continue
		}
		best := 0
		for k, i := range st.ready {
			if st.height[i] > st.height[st.ready[best]] {
				best = k
			}
		}
		i := st.ready[best]
		st.ready = append(st.ready[:best], st.ready[best+1:]...)
		sys := st.systems[i]
		sys.soloAtStart = st.running == 0
		st.running++
		st.started++
		sys.mark = st.started
		sys.on = on
		st.mu.Unlock()

		caught := sys.step(w)

		st.mu.Lock()
		// Its allocations are its own if it started alone and no other
		// system started before it ended.
		sys.allocs.note(sys.soloAtStart && st.started == sys.mark)
		st.running--
		if caught != nil && st.caught == nil {
			st.caught = caught
		}
		st.left--
		for _, j := range st.after[i] {
			if st.pending[j]--; st.pending[j] == 0 {
				st.ready = append(st.ready, j)
			}
		}
		st.wake.Broadcast()
	}
}

// timingWindow is how many recent runs a system's mean and history cover.
const timingWindow = 120

type timing struct {
	mu     sync.Mutex
	last   time.Duration
	max    time.Duration
	count  uint64
	recent [timingWindow]time.Duration
}

func (t *timing) record(d time.Duration) {
	t.mu.Lock()
	t.last = d
	t.max = max(t.max, d)
	t.recent[t.count%timingWindow] = d
	t.count++
	t.mu.Unlock()
}

// skips counts the commands a system queued that were skipped, and keeps
// the newest reasons.
type skips struct {
	mu    sync.Mutex
	count uint64
	why   [maxSkipReasons]SkipReason
	n     int // reasons noted in all
}

// maxSkipReasons is how many of the newest reasons a system keeps.
const maxSkipReasons = 4

// SkipReason is why a queued command was skipped, and the frame it was in
// (the frames completed when its stage ended).
type SkipReason struct {
	Frame uint64
	Why   string
}

func (s *skips) note(n int, errs []error, frame uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count += uint64(n)
	for _, err := range errs {
		s.why[s.n%maxSkipReasons] = SkipReason{Frame: frame, Why: err.Error()}
		s.n++
	}
}

// reasons are the newest reasons, oldest first.
func (s *skips) reasons() []SkipReason {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SkipReason
	for k := max(s.n-maxSkipReasons, 0); k < s.n; k++ {
		out = append(out, s.why[k%maxSkipReasons])
	}
	return out
}

// SystemInfo describes a system and how long its runs take.
type SystemInfo struct {
	Name   string
	Stage  string
	Reads  []string // short type names
	Writes []string
	Last   time.Duration
	Mean   time.Duration // over the last runs, up to 120
	Max    time.Duration
	Count  uint64
	Recent []time.Duration // the last runs, oldest first, up to 120
	// Skipped counts the commands the system queued that could not be
	// carried out when its stage ended (see Commands.Apply); SkippedWhy
	// holds the newest reasons (at most 4), oldest first.
	Skipped    uint64
	SkippedWhy []SkipReason
	// AllocBytes and AllocObjects are what a run allocated, the mean of
	// the recent runs measured alone (Schedule.TrackAllocs); AllocRuns
	// counts those, AllocShared the recent runs that ran beside another
	// system and so were attributed to neither.
	AllocBytes, AllocObjects float64
	AllocRuns, AllocShared   int
}

// Systems describes every system in registration order.
func (s *Schedule) Systems() []SystemInfo {
	var out []SystemInfo
	for _, st := range s.stages {
		for _, sys := range st.systems {
			in := SystemInfo{Name: sys.name, Stage: sys.stage}
			for _, t := range sys.reads {
				in.Reads = append(in.Reads, shortName(t))
			}
			for _, t := range sys.writes {
				in.Writes = append(in.Writes, shortName(t))
			}
			t := &sys.timing
			t.mu.Lock()
			in.Last, in.Max, in.Count = t.last, t.max, t.count
			n := min(t.count, timingWindow)
			var sum time.Duration
			for k := t.count - n; k < t.count; k++ {
				d := t.recent[k%timingWindow]
				in.Recent = append(in.Recent, d)
				sum += d
			}
			if n > 0 {
				in.Mean = sum / time.Duration(n)
			}
			t.mu.Unlock()
			in.AllocBytes, in.AllocObjects, in.AllocRuns, in.AllocShared = sys.allocs.summary()
			in.SkippedWhy = sys.skips.reasons()
			sys.skips.mu.Lock()
			in.Skipped = sys.skips.count
			sys.skips.mu.Unlock()
			out = append(out, in)
		}
	}
	return out
}

// writeIDs are the components the system declared it writes (resources
// and types not registered as components left out); nil if it declared no
// access at all, which allows it anything.
func (sys *system) writeIDs(w *World) []ComponentID {
	if len(sys.reads)+len(sys.writes) == 0 {
		return nil
	}
	ids := []ComponentID{}
	for _, t := range sys.writes {
		if id, ok := w.reg.lookup(t); ok {
			ids = append(ids, id)
		}
	}
	return ids
}
