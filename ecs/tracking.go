package ecs

import (
	"sync"
	"sync/atomic"
)

// Change stamps on demand. A component's row stamps (stamps.go) cost 8
// bytes per row and a read and a write per row on every move, yet most
// components are never asked when they changed. So a component keeps no
// stamps until something reads them: a query with a Changed or Added term
// on it, a scan or watch of a tool asking what changed, a capturer, a
// provenance lookup (Inspection). From then on every column of it keeps
// stamps, in the tables there are and in those to come, for the world's
// life. A debug build keeps every component's stamps from the start: its
// check for undeclared writes reads them.
//
// The stamps a column starts with are a stamp of their own, taken as a run
// takes one: every row counts as written and added then. Nothing that read
// stamps before can tell, since nothing did; a Changed query's first run
// passes every row either way, and every later reader's since is at least
// that stamp, so from then on the answers are those of stamps kept always.
// (A since taken elsewhere before then, a system run's, finds every row
// changed once: more, never less.) Who wrote a row before then is not
// known: its provenance says so (Known false) rather than name a writer.

// stampState says which components keep stamps. Any goroutine may ask
// (a provenance lookup or a tool's stamp from a system of a parallel
// stage): the flags are atomic, and starting a component's stamps takes
// mu, so two systems asking at once start it once.
type stampState struct {
	mu   sync.Mutex
	all  atomic.Bool                  // every component, those registered later included
	on   [MaxComponents]atomic.Bool   // the component's columns keep stamps
	from [MaxComponents]atomic.Uint32 // the stamp they were filled with when they began; 0: from their first row
}

// kept reports whether new columns of id keep stamps.
func (s *stampState) kept(id ComponentID) bool { return s.all.Load() || s.on[id].Load() }

// before reports whether tick dates from before id's columns kept stamps:
// the fill, or older.
func (s *stampState) before(id ComponentID, tick uint32) bool {
	from := s.from[id].Load()
	return from != 0 && !newer(tick, from)
}

// trackChanges makes every column of id keep stamps from now on (sparse
// sets always keep theirs). It changes every table holding id, so the
// first call for a component belongs where structural changes may
// happen; from a system, only one declaring it (so no system writing it
// runs beside): the other systems running then do not touch its stamps.
func (w *World) trackChanges(id ComponentID) {
	if int(id) >= len(w.reg.regs) || w.stamps.kept(id) {
		return
	}
	s := &w.stamps
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept(id) {
		return
	}
	fill := w.changeStamp.Add(1) // no run's, and older than any write to come
	for _, t := range w.tables {
		if j := t.column(id); j >= 0 {
			t.cols[j].startStamps(fill)
			if t.raw[j].ok {
				t.raw[j].ticks = t.ticks[j] // what raw() now gives, the other fields untouched
			}
		}
	}
	s.from[id].Store(fill)
	s.on[id].Store(true)
}

// trackAllChanges makes every component keep stamps, those registered
// later included.
func (w *World) trackAllChanges() {
	if w.stamps.all.Load() {
		return
	}
	for id := range w.reg.regs {
		w.trackChanges(ComponentID(id))
	}
	w.stamps.all.Store(true)
}

// start makes the column keep stamps: its n rows, in room for c, changed
// and added at fill.
func (t *colStamps) start(n, c int, fill uint32) {
	if t.on {
		return
	}
	t.on = true
	t.ensure(max(c, n, 1))
	t.fillTicks(0, n, fill) // sets the rows' group maxima too
	t.rows = t.rows[:n]
}

// inspectTrackChanges is [Inspection.TrackChanges].
func (w *World) inspectTrackChanges(ids []ComponentID) {
	if len(ids) == 0 {
		w.trackAllChanges()
	}
	for _, id := range ids {
		w.trackChanges(id)
	}
}
