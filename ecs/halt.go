package ecs

import "sync"

// Halting a frame at a write.
//
// A debugger that finds a bad value in SystemEnd wants the world as that
// system left it: before later systems overwrite it and before the
// stage's commands despawn the entity. SystemEnd may run on a worker
// goroutine beside other systems, so it cannot stop there; it asks
// (SystemRun.Halt), and the schedule stops at the first moment no system
// of the stage runs: a sequential stage right after the system, a
// parallel one once the systems already running end, starting no other.
// Halted then runs on the goroutine that called Run; the frame goes on
// when it returns.

// Halt is where a frame stopped, as [Schedule.Halted] sees it.
type Halt struct {
	// Asked is the system whose SystemEnd asked to halt (the first, if
	// several did); Stage, the stage running.
	Asked, Stage string
	// Ran lists the systems that have run this frame, in the order they
	// ended; Systems is how many the schedule runs a frame.
	Ran     []string
	Systems int
}

// haltState is a schedule's pending halt and the systems run this frame.
type haltState struct {
	mu    sync.Mutex
	asked string
	want  bool
	ran   []string
}

// Halt asks the schedule to stop the frame as soon as no system runs, and
// to call [Schedule.Halted] there; without Halted set, it does nothing.
func (r SystemRun) Halt() {
	s := r.sched
	if s == nil || s.Halted == nil {
		return
	}
	s.halt.mu.Lock()
	if !s.halt.want {
		s.halt.want, s.halt.asked = true, r.Name
	}
	s.halt.mu.Unlock()
}

// ended notes a system's run for the frame's Halt.
func (s *Schedule) ended(name string) {
	if s.Halted == nil {
		return
	}
	s.halt.mu.Lock()
	s.halt.ran = append(s.halt.ran, name)
	s.halt.mu.Unlock()
}

// wantsHalt reports whether a SystemEnd asked to halt.
func (s *Schedule) wantsHalt() bool {
	if s.Halted == nil { // Halt asks nothing then
		return false
	}
	s.halt.mu.Lock()
	defer s.halt.mu.Unlock()
	return s.halt.want
}

// halted calls Halted, no system running, if a halt was asked for.
func (s *Schedule) halted(w *World, st *stage) {
	if s.Halted == nil { // Halt asks nothing then
		return
	}
	s.halt.mu.Lock()
	if !s.halt.want {
		s.halt.mu.Unlock()
		return
	}
	h := Halt{Asked: s.halt.asked, Stage: st.name, Ran: append([]string(nil), s.halt.ran...), Systems: s.Len()}
	s.halt.mu.Unlock()
	// Asked until Halted returns: a worker woken meanwhile starts nothing.
	s.Halted(w, h)
	s.halt.mu.Lock()
	s.halt.want, s.halt.asked = false, ""
	s.halt.mu.Unlock()
}

// Len is how many systems the schedule holds, in every stage.
func (s *Schedule) Len() int {
	n := 0
	for _, st := range s.stages {
		n += len(st.systems)
	}
	return n
}
