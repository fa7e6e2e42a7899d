package ecs

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
// Who wrote a row before then is not known: its provenance says so
// (Known false) rather than name a writer.

// trackChanges makes every column of id keep stamps from now on (sparse
// sets always keep theirs). Like making a query's change log, it changes
// every table holding id: call it where structural changes may happen
// (not from a system running beside others).
func (w *World) trackChanges(id ComponentID) {
	if int(id) >= len(w.reg.regs) || w.reg.stampsKept(id) {
		return
	}
	w.reg.stamped.Set(id)
	fill := w.changeStamp.Add(1) // no run's, and older than any write to come
	w.reg.regs[id].stampsFrom = fill
	for _, t := range w.tables {
		if j := t.column(id); j >= 0 {
			t.cols[j].startStamps(fill)
			t.raw[j] = t.cols[j].raw()
		}
	}
}

// trackAllChanges makes every component keep stamps, those registered
// later included.
func (w *World) trackAllChanges() {
	for id := range w.reg.regs {
		w.trackChanges(ComponentID(id))
	}
	w.reg.stampAll = true
}

// beforeStamps reports whether tick dates from before id's columns kept
// stamps: the fill, or older.
func (r *registry) beforeStamps(id ComponentID, tick uint32) bool {
	from := r.regs[id].stampsFrom
	return from != 0 && !newer(tick, from)
}

// stampsKept reports whether new columns of id keep stamps.
func (r *registry) stampsKept(id ComponentID) bool { return r.stampAll || r.stamped.Has(id) }

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
