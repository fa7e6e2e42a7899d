package ecs

import (
	"slices"
	"sync"
)

// Who wrote a value.
//
// Change stamps already say when a row was written: each query run takes a
// stamp of its own and writes carry it (stamps.go). What was missing is who.
// Rather than a writer column per row (a store in the hottest loops), each
// run of a system, and each command buffer applied, takes a range of ticks
// of its own: the world's tick is advanced before it starts, so its writes
// carry ticks no other sequential run shares, and the range is noted in a
// ring with the runner and the frame. A row's changed tick, looked up in the
// ring, names its writer; its added tick, who added the component. Systems
// a parallel stage runs at once may share ticks, but the schedule lets two
// systems run at once only if neither writes what the other touches, so
// the component written tells them apart (by their declared writes). The
// cost is two atomic operations and a 16-byte entry per system run, and
// nothing per write.

// writerRing is how many runs the log keeps: at 20 runs a frame and 60
// frames a second, almost a minute.
const writerRing = 1 << 16

// writerRun is one run's range of change stamps [from, to], who ran (an
// actor: a system's name, a command buffer's owner), and the frame.
type writerRun struct {
	from, to uint32
	frame    uint32
	actor    uint16
	commands bool // the run applied actor's command buffer
}

// writerLog is the world's ring of runs, made on first use.
type writerLog struct {
	mu     sync.Mutex // systems of a parallel stage end at once
	runs   []writerRun
	next   int                      // where the next run goes
	n      int                      // runs kept, up to writerRing
	writes map[uint16][]ComponentID // what each system declared it writes
	// active counts, by actor, the runs of each system going now, and
	// nactive the systems with one (audit.go): slices, as a run's start
	// and end are on every system's path.
	active  []int32
	nactive int
	// on is the goroutine each running system runs on, by actor (0: not
	// known), while the stale audit is on: a stale use in a parallel stage
	// names its system; non counts those known.
	on  []uint64
	non int
}

// openWrites starts a run: it returns the first tick the run's writes can
// carry (the world's tick is advanced past every write made before).
func (w *World) openWrites() uint32 { return w.changeStamp.Add(1) + 1 }

// runStarted and runEnded keep the set of systems running, for the
// stale-handle audit (a system's own goroutine is not otherwise known).
func (w *World) runStarted(actor uint16, on uint64) {
	l := &w.writers
	l.mu.Lock()
	if int(actor) >= len(l.active) {
		l.active = append(l.active, make([]int32, int(actor)+1-len(l.active))...)
		l.on = append(l.on, make([]uint64, int(actor)+1-len(l.on))...)
	}
	if l.active[actor] == 0 {
		l.nactive++
	}
	l.active[actor]++
	if on != 0 { // a system run alone is told by being alone (staleUser)
		if l.on[actor] == 0 {
			l.non++
		}
		l.on[actor] = on
	}
	l.mu.Unlock()
}

func (w *World) runEnded(actor uint16) {
	l := &w.writers
	l.mu.Lock()
	l.ended(actor)
	l.mu.Unlock()
}

// ended notes that a run of actor ended (l.mu held).
func (l *writerLog) ended(actor uint16) {
	if l.active[actor]--; l.active[actor] <= 0 {
		l.active[actor] = 0
		l.nactive--
		if l.on[actor] != 0 {
			l.on[actor] = 0
			l.non--
		}
	}
}

// closeRun ends a system's run that began at from: closeWrites and
// runEnded under one lock, as every system run ends so.
func (w *World) closeRun(from uint32, actor uint16) {
	to := w.changeStamp.Add(1)
	l := &w.writers
	l.mu.Lock()
	l.note(writerRun{from: from, to: to, frame: uint32(w.changeFrame()), actor: actor})
	l.ended(actor)
	l.mu.Unlock()
}

// closeWrites notes a run that began at from (openWrites) for actor.
func (w *World) closeWrites(from uint32, actor uint16, commands bool) {
	// A write made last carries the tick after the world's; advancing it
	// past that keeps the writes made after the run out of its range.
	to := w.changeStamp.Add(1)
	l := &w.writers
	l.mu.Lock()
	l.note(writerRun{from: from, to: to, frame: uint32(w.changeFrame()), actor: actor, commands: commands})
	l.mu.Unlock()
}

// note keeps r in the ring (l.mu held).
func (l *writerLog) note(r writerRun) {
	if l.runs == nil {
		l.runs = make([]writerRun, writerRing)
	}
	l.runs[l.next] = r
	l.next = (l.next + 1) % writerRing
	l.n = min(l.n+1, writerRing)
}

// declareWrites notes the components a system declared it writes, to tell
// apart systems that ran at once.
func (w *World) declareWrites(actor uint16, writes []ComponentID) {
	l := &w.writers
	l.mu.Lock()
	if l.writes == nil {
		l.writes = map[uint16][]ComponentID{}
	}
	l.writes[actor] = writes
	l.mu.Unlock()
}

// Provenance says who wrote a component's value (or added it) and when.
type Provenance struct {
	// Frame is the frame ([World.Frame]) during which it happened; with
	// Known false, the frame is unknown too.
	Frame uint64
	// By is the system that did it; "name (commands)" for its command
	// buffer; the actor [Inspection.ActAs] was given; "outside the schedule"
	// for a write made by code no run covers.
	By string
	// Known is false when it was too long ago (older than the log), never
	// written, or before anything asked for the component's stamps
	// ([Inspection.TrackChanges]).
	//
	// A change stamp says that By held this row for writing last, not
	// that it changed the value: By may have left it as it was, and the
	// value may have been changed by another system of that frame
	// ([Inspection.WriteHolders] names them) or in an earlier frame.
	Known bool
}

// inspectLastWrite is [Inspection.LastWrite].
func (w *World) inspectLastWrite(e Entity, id ComponentID) (written, added Provenance, ok bool) {
	changed, add, ok := w.componentTicks(e, id)
	if !ok {
		return Provenance{}, Provenance{}, false
	}
	return w.provenance(changed, id), w.provenance(add, id), true
}

// componentTicks are e's changed and added ticks for component id.
func (w *World) componentTicks(e Entity, id ComponentID) (changed, added uint32, ok bool) {
	w.trackChanges(id)
	rec, alive := w.record(e)
	if !alive || int(id) >= len(w.sparse) {
		return 0, 0, false
	}
	if s := w.sparse[id]; s != nil {
		return s.ticks(e)
	}
	t := w.tables[rec.table]
	j := t.column(id)
	if j < 0 {
		return 0, 0, false
	}
	row := int(rec.row)
	return t.ticks[j].effective(row), t.ticks[j].effectiveAdded(row), true
}

// provenance finds the run that wrote component id at tick.
func (w *World) provenance(tick uint32, id ComponentID) Provenance {
	l := &w.writers
	l.mu.Lock()
	defer l.mu.Unlock()
	if tick == 0 || l.n == 0 || w.stamps.before(id, tick) {
		return Provenance{}
	}
	var best, before *writerRun
	bestDeclares := false
	ended := 0
	for k := 1; k <= l.n; k++ { // newest first
		r := &l.runs[(l.next-k+writerRing)%writerRing]
		if newer(tick, r.to) { // the run ended before tick
			if before == nil || newer(r.to, before.to) {
				before = r
			}
			// Runs are noted as they end, in start order but for the
			// systems of a parallel stage: a few more may still cover tick.
			if ended++; ended > 64 {
				break
			}
			continue
		}
		if newer(r.from, tick) {
			continue // began after
		}
		declares := r.commands || l.declares(r.actor, id)
		if best == nil || declares && !bestDeclares {
			best, bestDeclares = r, declares
		}
	}
	switch {
	case best != nil:
		return Provenance{Frame: uint64(best.frame), By: w.runName(best), Known: true}
	case before != nil: // between runs: the game's own code
		return Provenance{Frame: uint64(before.frame), By: "outside the schedule", Known: true}
	}
	return Provenance{} // before the log's memory
}

// runName names a run's runner: a system, "S (commands)" for its buffer.
func (w *World) runName(r *writerRun) string {
	if r.commands {
		return w.actorName(r.actor) + " (commands)"
	}
	return w.actorName(r.actor)
}

// holdersLimit bounds the runs holders reads back from the newest: a
// frame's runs are found among the last few thousand, or not at all.
const holdersLimit = 4096

// inspectWriteHolders is [Inspection.WriteHolders].
func (w *World) inspectWriteHolders(id ComponentID, frame uint64) []string {
	l := &w.writers
	l.mu.Lock()
	defer l.mu.Unlock()
	frame32 := uint32(frame)
	var found []*writerRun
	for k := 1; k <= min(l.n, holdersLimit); k++ { // newest first
		r := &l.runs[(l.next-k+writerRing)%writerRing]
		if r.frame != frame32 {
			if newer(frame32, r.frame) { // an older frame: past them all
				break
			}
			continue
		}
		if r.commands || l.declares(r.actor, id) {
			found = append(found, r)
		}
	}
	slices.SortStableFunc(found, func(a, b *writerRun) int { // by start: the stamps wrap, so by their difference
		return int(int32(a.from - b.from))
	})
	var names []string
	for _, r := range found {
		if n := w.runName(r); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// declares reports whether actor declared it writes id (an actor that
// declared nothing may write anything). l.mu is held.
func (l *writerLog) declares(actor uint16, id ComponentID) bool {
	ws, ok := l.writes[actor]
	if !ok {
		return true
	}
	for _, c := range ws {
		if c == id {
			return true
		}
	}
	return false
}
