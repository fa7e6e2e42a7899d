package inspector

import (
	"fmt"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/budget"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// A value watchpoint set late still answers for the past the agent keeps:
// the last states of the recently dead (a value made and taken away with
// its entity in one frame, as a death system does, shows only there) and
// the in-memory ring's recorded ticks. Its reply says the first tick it
// held at, for which entity, with what, and what the search could not see.

// pastSearchTime bounds the search of the ring: its frames are replayed
// off the game goroutine, and the watchpoint's reply waits for them at
// most this long.
const pastSearchTime = 2 * time.Second

// pastSearchRest is how many times a search's time the next waits: the
// searches take a fifth of a core at most.
const pastSearchRest = 4

// searchPast answers r, the Watch that made value watchpoint w, with what
// the agent's past holds of it: the dead first, on the game goroutine
// within the requests' budget, then the ring on the client's writer
// goroutine. It reports false when there is nothing to search (another
// kind of watchpoint): the caller answers.
func (a *Agent) searchPast(r request, w uint32) bool {
	expr, entity, ok := a.watches.PastQuery(w)
	if !ok {
		return false
	}
	dead, deadHeld, deadAll := a.watches.FirstDead(w, time.Now().Add(budget.PerFrame))
	deadNote := ""
	switch {
	case deadHeld:
		deadNote = fmt.Sprintf("it held for %v as it died at tick %d (its last state, despawned by %s", dead.Entity, dead.Died.Tick, dead.Died.By)
		if v := record.TestedValues(dead.Components, expr); v != "" {
			deadNote += ": " + v
		}
		deadNote += ")"
	case !deadAll:
		deadNote = "the last states of the dead were searched in part (the oldest first, within the frame's budget)"
	}
	var frames []record.Frame
	if a.ringMem != nil {
		frames = a.ringMem.All()
	}
	if len(frames) == 0 || time.Now().UnixNano() < a.searchFree.Load() || !a.searching.CompareAndSwap(false, true) {
		// One ring search at a time, whoever asks, and searches take a
		// fifth of a core at most: a client that sets watchpoints in a
		// loop keeps no core busy.
		msg := deadNote
		if len(frames) > 0 {
			msg = joinNotes(msg, "the recorded ticks were not searched: the agent searches them for one watchpoint at a time, a fifth of a core at most (set it again in a moment)")
		}
		r.c.Answer(&protocol.Reply{ID: r.id, OK: true, Watch: w, Message: msg})
		return true
	}
	// Replayed on the client's writer goroutine, as a heavy answer: never
	// on the game's (which may be stopped inside a frame by this very
	// watchpoint, and then runs nothing queued for its frame's end).
	r.c.Job(512, true, func() protocol.Message {
		start := time.Now()
		defer func() { // the next search waits four times this one's time
			end := time.Now()
			a.searchFree.Store(end.Add(pastSearchRest * end.Sub(start)).UnixNano())
			a.searching.Store(false)
		}()
		past, err := record.FirstHeld(frames, expr, entity, start.Add(pastSearchTime))
		ringNote := past.String()
		if err != nil {
			ringNote = "the recorded ticks could not be searched: " + err.Error()
		}
		msg := joinNotes(ringNote, deadNote)
		if deadHeld && past.Held && dead.Died.Tick < past.Tick {
			msg = joinNotes(deadNote, ringNote) // the earlier first
		}
		return &protocol.Reply{ID: r.id, OK: true, Watch: w, Message: msg}
	})
	return true
}

// joinNotes joins what the searches found, leaving out those with nothing.
func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
