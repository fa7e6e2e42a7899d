package ecs

import (
	"bytes"
	"unsafe"
)

// iterCore walks a query's tables, row by row (Next) or run by run
// (NextTable), applies row filters, and marks what it hands out for writing.
type iterCore struct {
	seq    uint32     // counts the runs its state served: a handle of an older one is stale
	inUse  bool       // a run is going
	cur    *table     // the table cols were loaded for
	cols   runColumns // the typed columns of the run (iterRunN)
	q      *queryState
	tables []*table
	ti     int
	tbl    *table
	ents   []Entity
	row    int // current row
	end    int // Next's fast path runs while row < end; 0 in filtered mode
	n      int // rows in tbl
	lo, hi int // the run handed out by NextTable
	tick   uint32
	since  uint32

	onlyStamps *colStamps           // set when the only row filter is one Changed on a table column
	writes     [maxArity]*colStamps // writable columns present in tbl
	nwrites    int
	ticks      [maxStampFilters]*colStamps // per stamp test of the query, its column in tbl
	batch      bool
	counting   bool // Count: no marks, no lock, no run recorded
	done       bool

	// byHolder: the run walks holders (a relation's entities of one
	// target, from hk on) instead of tables (holdersOf).
	byHolder bool
	holders  []Entity
	hk       int
	// byTarget: the run walks the tables aimed at one target (holdersOf),
	// which it tests against the query as the query's cache did its own.
	byTarget bool
	// runLo and runEnd are the holders' run handed out, not yet marked.
	runLo, runEnd int

	// plain: Changed rows need nothing else per row (see quickChanged).
	// dirtyOn: changedScan.dirty holds the rows a change log names.
	plain, dirtyOn bool
	// changedScan is the state of a run with onlyStamps, made (or taken
	// from the query) only then: most runs never need it, and a run's
	// state is cleared whole when it starts.
	*changedScan
}

// changedScan is what a run with onlyStamps keeps besides.
type changedScan struct {
	// Next takes rows from a batch of candidates found ahead (see
	// fillChanged): cand[candI:candN] are rows still to hand out, and rows
	// below scanned have been looked at.
	cand         [candGroups * groupRows]int32
	candI, candN int
	scanned      int
	touch        [maxArity]*rawCol // the query's columns in tbl, to warm (see fillChanged)
	ntouch       int
	warm         uint8 // sums the warming loads so they are not optimized away
	// With a change log covering the run, dirty holds the rows of tbl
	// that the log names (see changelog.go); fillChanged takes rows from
	// it, from dirtyAt on, instead of scanning maxima.
	dirty   dirtyBits
	dirtyAt int
}

// runColumns is a run's typed column access, as iterCore.step reaches it.
type runColumns interface {
	load(t *table)               // the columns of a new table
	seek(row int, ents []Entity) // sparse components of a filtered row
}

// step is Next's slow path: the next table, or the next row of a filtered
// run; false when the run is over (or seq is a handle of an older one).
func (c *iterCore) step(seq uint32) bool {
	if c.seq != seq {
		return false
	}
	if c.quickChanged() {
		return true
	}
	if !c.advance() {
		c.inUse = false
		return false
	}
	if t := c.tbl; t != c.cur {
		c.cur = t
		c.cols.load(t)
	}
	if c.q.filtered && c.q.readsSparse {
		c.cols.seek(c.row, c.ents)
	}
	return true
}

// candGroups is how many dirty groups of rows fillChanged gathers at once.
const candGroups = 64

// begin starts a run of q: it locks the world against structural changes and
// takes the run's change stamp.
func (c *iterCore) begin(q *queryState, batch bool) {
	c.q = q
	c.tables = q.cache.tables
	c.ti = -1
	c.row = -1
	c.batch = batch
	c.since = q.lastRun
	if c.counting {
		return
	}
	q.w.locks.Add(1)
	c.tick = q.w.changeStamp.Add(1)
	q.lastRun = c.tick
}

// finish ends the run and unlocks the world.
func (c *iterCore) finish() {
	if c.done {
		return
	}
	c.releaseDirty()
	if !c.counting {
		c.q.logSeen = c.tick
	}
	c.returnScan()
	c.done = true
	c.tbl = nil
	c.end = 0
	if !c.counting {
		c.q.w.locks.Add(-1)
	}
}

// close ends the run early, marking rows handed out so far.
func (c *iterCore) close() {
	if c.done {
		return
	}
	if c.byHolder {
		c.markHolderRun(c.row + 1)
	} else if !c.q.filtered && !c.batch && c.tbl != nil && c.row >= 0 {
		c.mark(0, min(c.row+1, c.n))
	}
	c.finish()
}

func (c *iterCore) nextTable() bool {
	c.releaseDirty()
	for c.ti+1 < len(c.tables) {
		c.ti++
		t := c.tables[c.ti]
		if t.len() == 0 || c.byTarget && !c.q.st.matches(t) {
			continue
		}
		c.enterTable(t)
		c.onlyStamps = nil
		if q := c.q; q.onlyChanged {
			c.onlyStamps = c.ticks[0]
		}
		c.plain = c.onlyStamps != nil && c.nwrites == 0 && len(c.q.writeSp) == 0 && !c.q.readsSparse
		if c.onlyStamps != nil {
			if c.changedScan == nil {
				c.changedScan = c.q.takeScan()
			}
			c.candI, c.candN, c.scanned = 0, 0, 0
			c.ntouch = 0
			c.takeDirty()
			for _, id := range c.q.ids {
				if j := t.column(id); j >= 0 && t.raw[j].ok && t.raw[j].size > 0 && c.ntouch < maxArity {
					c.touch[c.ntouch] = &t.raw[j]
					c.ntouch++
				}
			}
		}
		return true
	}
	c.tbl = nil
	return false
}

// enterTable makes t the run's table: its rows, the columns its writes
// mark and its stamp tests read.
func (c *iterCore) enterTable(t *table) {
	c.tbl, c.ents, c.n = t, t.entities, t.len()
	c.nwrites = 0
	if !c.counting {
		for _, id := range c.q.writeIDs {
			if j := t.column(id); j >= 0 && t.ticks[j].on {
				c.writes[c.nwrites] = t.ticks[j]
				c.nwrites++
			}
		}
	}
	c.q.st.stampColumns(t, c.ticks[:])
}

// holdersOf makes the run walk the entities whose relation points at a
// target instead of all the query's tables: for an aimed kind the tables
// aimed at the target that the query matches (aimed.go); else the
// holders' list in the relation's index, each looked up in its table and
// tested as a filtered row.
func (c *iterCore) holdersOf(t RelTarget) {
	w := c.q.w
	if w.aimMask.Has(t.Kind) {
		c.tables, c.byTarget = nil, true
		if ri := w.relation(t.Kind); ri != nil && w.Alive(t.Target) {
			c.tables = ri.tables[t.Target.index]
		}
		return
	}
	c.byHolder, c.holders, c.hk = true, nil, 0
	if ri := w.relation(t.Kind); ri != nil && w.Alive(t.Target) {
		c.holders = ri.holders[t.Target.index]
	}
}

// advanceHolder moves to the next holders that match the query: a run of
// them in consecutive rows of one table (holders spawned together lie so)
// when rows are not tested one by one, [row, end); else one row, marked.
// False when none is left.
func (c *iterCore) advanceHolder() bool {
	w := c.q.w
	c.markHolderRun(c.runEnd)
	for c.hk < len(c.holders) {
		e := c.holders[c.hk]
		c.hk++
		rec := &w.records[e.index]
		t := w.tables[rec.table]
		if !c.q.st.matches(t) {
			continue
		}
		if t != c.tbl {
			c.enterTable(t)
		}
		row := int(rec.row)
		if c.q.filtered {
			if !c.pass(row) {
				continue
			}
			c.row = row
			c.markOne(row)
			return true
		}
		// The run goes on while the next holders are the table's next
		// rows: compared a block at a time as memory.
		end, hs, ents := row+1, c.holders, t.entities
		for c.hk < len(hs) && end < len(ents) {
			n := min(64, len(hs)-c.hk, len(ents)-end)
			if sameEntities(hs[c.hk:c.hk+n], ents[end:end+n]) {
				c.hk, end = c.hk+n, end+n
				continue
			}
			for c.hk < len(hs) && end < len(ents) && hs[c.hk] == ents[end] {
				c.hk, end = c.hk+1, end+1
			}
			break
		}
		c.row, c.end, c.runLo, c.runEnd = row, end, row, end
		return true
	}
	c.finish()
	return false
}

// markHolderRun marks the rows of the holders' run handed out, up to end:
// they count as written for Mut components, as a table's rows do.
func (c *iterCore) markHolderRun(end int) {
	if c.runEnd > c.runLo && !c.counting {
		c.mark(c.runLo, min(end, c.runEnd))
	}
	c.runLo, c.runEnd = 0, 0
}

// takeDirty starts a table's Changed rows from its change log, when the log
// covers the run and the query's bitmap is free (a run of the same query
// nested in this one holds it: that one scans).
func (c *iterCore) takeDirty() {
	q, l := c.q, &c.onlyStamps.log
	if q.dirtyBusy || !l.covers(c.since) {
		return
	}
	q.dirty = q.dirty.sized(c.n)
	q.dirtyBusy = true
	c.dirty, c.dirtyOn, c.dirtyAt = q.dirty, true, 0
	l.dirtyRows(c.since, c.n, c.dirty)
}

// returnScan gives the run's changedScan back to the query, for its next
// run.
func (c *iterCore) returnScan() {
	if c.changedScan != nil {
		c.q.scan = c.changedScan
		c.changedScan = nil
	}
}

// releaseDirty hands the query's bitmap back, cleared.
func (c *iterCore) releaseDirty() {
	if !c.dirtyOn {
		return
	}
	c.dirty.clearFrom(c.dirtyAt)
	c.dirty, c.dirtyOn = dirtyBits{}, false
	c.q.dirtyBusy = false
}

// mark records a write, at this run's tick, of rows [lo, hi) of tbl.
func (c *iterCore) mark(lo, hi int) {
	for i := range c.nwrites {
		c.writes[i].markRows(lo, hi, c.tick)
	}
}

func (c *iterCore) markOne(row int) {
	if c.counting {
		return
	}
	for i := range c.nwrites {
		c.writes[i].markRow(row, c.tick)
	}
	for _, s := range c.q.writeSp {
		s.markChanged(c.ents[row], c.tick)
	}
}

// advance moves to the next row to hand out, c.row having been incremented;
// it reports whether there is one.
func (c *iterCore) advance() bool {
	if c.done {
		return false
	}
	if c.byHolder {
		return c.advanceHolder()
	}
	if c.q.filtered {
		return c.advanceFiltered()
	}
	if c.tbl != nil {
		c.mark(0, c.n)
	}
	if !c.nextTable() {
		c.finish()
		return false
	}
	c.row, c.end = 0, c.n
	return true
}

func (c *iterCore) advanceFiltered() bool {
	if c.tbl == nil {
		if !c.nextTable() {
			c.finish()
			return false
		}
		c.row = 0
	}
	for {
		if c.row >= c.n {
			if !c.nextTable() {
				c.finish()
				return false
			}
			c.row = 0
		}
		if c.onlyStamps != nil {
			c.row = c.nextChanged(c.row)
		} else {
			c.row = c.scan(c.row)
		}
		if c.row < c.n {
			c.markOne(c.row)
			return true
		}
	}
}

// scan returns the first row at or after r that passes the row filters, or n.
func (c *iterCore) scan(r int) int {
	if c.onlyStamps != nil {
		return c.scanChanged(r)
	}
	for r < c.n {
		if r&(groupRows-1) == 0 && !c.groupMayPass(r>>groupShift) {
			r += groupRows
			continue
		}
		if c.pass(r) {
			return r
		}
		r++
	}
	return c.n
}

// quickChanged hands out the next row found by fillChanged straight from
// Next's slow path, when the run has nothing else to do per row (no writes
// to mark, no sparse values to look up): one call per row instead of four.
// It reports false when the usual path must decide.
func (c *iterCore) quickChanged() bool {
	if !c.plain || c.candI >= c.candN {
		return false
	}
	r := int(c.cand[c.candI])
	if r < c.row {
		return false
	}
	c.candI++
	c.row = r
	return true
}

// nextChanged returns the first row at or after r that changed since the
// last run, or n, taking rows from the candidates fillChanged found.
func (c *iterCore) nextChanged(r int) int {
	for {
		for c.candI < c.candN {
			row := int(c.cand[c.candI])
			c.candI++
			if row >= r {
				return row
			}
		}
		if c.scanned >= c.n {
			return c.n
		}
		c.fillChanged()
	}
}

// fillChanged finds the next batch of changed rows, from the change log or
// by scanning the group maxima.
func (c *iterCore) fillChanged() {
	if c.dirtyOn {
		c.fillFromLog()
	} else {
		c.fillFromScan()
	}
}

// fillFromLog takes the next rows the change log named, in order. If rows
// left the table since the query last ran, it keeps those whose tick is
// newer than since (see changelog.go); otherwise all of them are. Stamps
// need no look: a stamp restarts the log, so none is newer than since when
// the log covers it. The rows' ticks and values are loaded first in tight
// loops of independent loads, so their cache misses overlap.
func (c *iterCore) fillFromLog() {
	t, since, n := c.onlyStamps, c.since, c.n
	rows := t.rows[:n]
	k := c.dirty.pop(&c.dirtyAt, c.cand[:])
	c.scanned = n
	if c.dirtyAt < len(c.dirty.words) {
		c.scanned = int(c.cand[k-1]) + 1
	}
	c.candI, c.candN = 0, k
	if !newer(t.log.movedAt, since) {
		c.warmValues(k)
		return
	}
	var warm uint8
	for _, r := range c.cand[:k] {
		warm += uint8(rows[r].changed)
	}
	c.warmValues(k)
	c.warm += warm
	kept := 0
	for _, r := range c.cand[:k] {
		c.cand[kept] = r
		kept += newerBit(rows[r].changed, since)
	}
	c.candI, c.candN = 0, kept
}

// fillFromScan finds the next changed rows in two passes. The first reads
// the per-group maxima in order (the prefetcher follows) and notes up to
// candGroups dirty groups; the second reads those groups' row ticks. Row
// ticks of different groups are independent loads, so their cache misses
// overlap instead of queueing behind one another, and so do the misses on
// the values the caller then reads at the rows handed out: each row's
// position is known before the previous value arrives.
func (c *iterCore) fillFromScan() {
	t, since, n := c.onlyStamps, c.since, c.n
	maxes, stamps, rows := t.max, t.stamp, t.rows[:n]
	var groups [candGroups]int32
	ng := 0
	g, gEnd := c.scanned>>groupShift, (n+groupRows-1)>>groupShift
	for ; g < gEnd && ng < candGroups; g++ {
		if newer(maxes[g], since) || newer(stamps[g>>(chunkShift-groupShift)], since) {
			groups[ng] = int32(g)
			ng++
		}
	}
	c.scanned = min(g<<groupShift, n)
	k := 0
	for _, g := range groups[:ng] {
		lo := int(g) << groupShift
		hi := min(lo+groupRows, n)
		if newer(stamps[int(g)>>(chunkShift-groupShift)], since) {
			for r := lo; r < hi; r++ {
				c.cand[k] = int32(r)
				k++
			}
			continue
		}
		for r := lo; r < hi; r++ {
			c.cand[k] = int32(r)
			k += newerBit(rows[r].changed, since)
		}
	}
	c.candI, c.candN = 0, k
	c.warmValues(k)
}

// warmValues loads the values of the first k candidates the caller is about
// to read: one independent load per row and column, so their misses overlap
// now rather than one by one in the caller's loop.
func (c *iterCore) warmValues(k int) {
	var warm uint8
	for _, col := range c.touch[:c.ntouch] {
		base, size := col.hdr.ptr, col.size
		for _, r := range c.cand[:k] {
			warm += *(*uint8)(unsafe.Add(base, uintptr(r)*size))
		}
	}
	c.warm += warm
}

// scanChanged is scan for the common case of a single Changed filter: a
// clean group of rows costs two comparisons, a dirty one a look at its rows.
func (c *iterCore) scanChanged(r int) int { return c.onlyStamps.nextChanged(r, c.n, c.since) }

func (c *iterCore) groupMayPass(g int) bool {
	return c.q.st.groupMayPass(c.ticks[:len(c.q.st.stamps)], g, c.since)
}

func (c *iterCore) pass(r int) bool {
	return c.q.st.rowPasses(c.q.w, c.ticks[:len(c.q.st.stamps)], c.ents[r], r, c.since)
}

// nextRun moves to the next run of rows for NextTable: a whole table, or with
// row filters, a stretch of consecutive passing rows.
func (c *iterCore) nextRun() (ok bool) {
	if c.done {
		return false
	}
	if c.byHolder { // the holders' runs of consecutive rows
		if !c.advanceHolder() {
			return false
		}
		c.lo, c.hi = c.row, max(c.end, c.row+1)
		return true
	}
	for {
		if c.tbl == nil || c.hi >= c.n {
			if !c.nextTable() {
				c.finish()
				return false
			}
			c.lo, c.hi = 0, 0
		}
		if !c.q.filtered {
			c.lo, c.hi = 0, c.n
			if !c.counting {
				c.mark(0, c.n)
			}
			return true
		}
		var lo, hi int
		if c.dirtyOn {
			// From the change log: a run is logged rows one after another.
			if lo = c.nextChanged(c.hi); lo >= c.n {
				c.hi = c.n
				continue
			}
			for hi = lo + 1; c.candI < c.candN && int(c.cand[c.candI]) == hi; hi++ {
				c.candI++
			}
		} else {
			if lo = c.scan(c.hi); lo >= c.n {
				c.hi = c.n
				continue
			}
			for hi = lo + 1; hi < c.n && c.pass(hi); hi++ {
			}
		}
		c.lo, c.hi = lo, hi
		if !c.counting {
			c.mark(lo, hi)
			for _, s := range c.q.writeSp {
				for r := lo; r < hi; r++ {
					s.markChanged(c.ents[r], c.tick)
				}
			}
		}
		return true
	}
}

// colAccess reaches one component of a query in the current table.
type colAccess[T any] struct {
	id     ComponentID
	sparse *sparseSet[T]
	col    []T // the table's column; nil if the table lacks T or T is sparse
	cur    *T  // what Get yields when col is nil: the sparse value of the row, or nil
}

func (a *colAccess[T]) init(w *World, id ComponentID) {
	a.id = id
	if s, ok := w.sparse[id].(*sparseSet[T]); ok {
		a.sparse = s
	}
}

func (a *colAccess[T]) load(t *table) {
	a.col, a.cur = nil, nil
	if a.sparse == nil {
		if j := t.column(a.id); j >= 0 {
			a.col = t.cols[j].(*typedColumn[T]).data
		}
	}
}

// seek prepares a sparse component for row; filtered runs call it per row.
func (a *colAccess[T]) seek(row int, ents []Entity) {
	if a.sparse != nil {
		a.cur = a.sparse.get(ents[row])
	}
}

// at returns the value at row, nil if the entity lacks T. It is small enough
// to inline: the hot loop pays one compare per component.
func (a *colAccess[T]) at(row int) *T {
	if uint(row) < uint(len(a.col)) {
		return &a.col[row]
	}
	return a.cur
}

// run returns the values of rows [lo, hi), nil if the table lacks T or T is
// sparse.
func (a *colAccess[T]) run(lo, hi int) []T {
	if a.col == nil {
		return nil
	}
	return a.col[lo:hi:hi]
}

// sameEntities reports whether a and b, as long, hold the same handles:
// one comparison of their memory.
func sameEntities(a, b []Entity) bool {
	n := len(a) * int(unsafe.Sizeof(Entity{}))
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), n), unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), n))
}
