package ecs

// Change detection. A change stamp is the kernel's change counter (a
// uint32 advanced by each query run, wrap-around safe), not a frame: the
// frame is World.Frame and the wire's tick.
//
// Every table column keeps, per row, the stamp its value was last written
// (changed) and the stamp the component was added to the entity (added). Stamps
// come from World.changeStamp, which advances once per query run; writes made
// by a run carry its stamp, and writes made outside any run carry the stamp the
// next run will get. A query's Changed/Added filters pass rows whose stamp is
// newer than the query's previous run, so nothing is ever cleared per frame.
//
// Writing a stamp per row per entity would cost a store in the hottest loop. So
// rows are grouped in chunks of chunkRows, and a query that hands out every
// row of a chunk for writing stamps the chunk once instead (stamp). A row's
// effective changed stamp is the newer of its own and its chunk's stamp. A
// stamp covers the rows present when it was set; before a row enters a
// stamped chunk (append, or swap-remove filling a hole) the stamp is folded
// into the chunk's rows (materialize), at most once per stamp. Change
// granularity is therefore exactly one row, at no per-entity cost.
//
// max holds, per group of groupRows rows, a conservative newest changed stamp
// of its rows, so a Changed or Added scan skips a clean group with one
// comparison. Groups are finer than chunks: with 1% of rows written at
// random, 8% of groups are dirty but half of all chunks.
//
// A batch spawn stamps the chunks it fills whole (stamp for changed, astamp
// for added) instead of writing both stamps per row: a slot's old stamps are
// older than any stamp to come, so newest(row, stamp) is the stamp.
//
// A column watched by a Changed query also logs which rows got a new stamp
// (changelog.go), so such a query visits those rows without any scan.
//
// A column keeps stamps only once something reads them (on; tracking.go):
// until then it has no stamp memory at all and every stamp operation
// below returns at once, so moves and spawns of wide entities copy values
// only.

const (
	chunkShift = 6
	chunkRows  = 1 << chunkShift
	groupShift = 3
	groupRows  = 1 << groupShift
)

// newer reports whether stamp a is after stamp b, wrap-around safe.
func newer(a, b uint32) bool { return int32(a-b) > 0 }

// newerBit is newer(a, b) as 1 or 0, without a branch: for loops that
// keep a candidate by advancing past it only if it passes.
func newerBit(a, b uint32) int {
	d := int32(a - b)
	return int((uint32(-d) >> 31) &^ (uint32(d) >> 31))
}

func newest(a, b uint32) uint32 {
	if newer(b, a) {
		return b
	}
	return a
}

// stampPair is one row's stamps for one component.
type stampPair struct {
	changed, added uint32
}

// colStamps holds the stamps of one table column. stamp and max are sized for
// the capacity of rows, so pushing a row appends to one slice only; a chunk
// or group left empty keeps its old stamp or max, which is harmless: a stamp
// is folded into a chunk before any row enters it, and a stale max only
// makes a scan look closer.
type colStamps struct {
	on     bool // stamps are kept (tracking.go); when not, the slices are nil
	rows   []stampPair
	stamp  []uint32 // per chunk: changed
	astamp []uint32 // per chunk: added; set only with stamp, by pushN
	max    []uint32 // per group
	log    changeLog
}

// ensure makes room for n rows.
func (t *colStamps) ensure(n int) {
	if !t.on || n <= cap(t.rows) {
		return
	}
	t.rows = withRoom(t.rows, grownCap(n, cap(t.rows)))
	c := cap(t.rows) // append may round the room up
	t.stamp = growTo(t.stamp, (c+chunkRows-1)>>chunkShift)
	t.astamp = growTo(t.astamp, (c+chunkRows-1)>>chunkShift)
	t.max = growTo(t.max, (c+groupRows-1)>>groupShift)
}

func growTo(s []uint32, n int) []uint32 {
	if n <= len(s) {
		return s
	}
	grown := make([]uint32, n)
	copy(grown, s)
	return grown
}

func (t *colStamps) reserve(extra int) { t.ensure(len(t.rows) + extra) }

func (t *colStamps) effective(row int) uint32 {
	return newest(t.rows[row].changed, t.stamp[row>>chunkShift])
}

// effectiveAdded is row's added stamp, its chunk's added stamp counted.
func (t *colStamps) effectiveAdded(row int) uint32 {
	return newest(t.rows[row].added, t.astamp[row>>chunkShift])
}

// materialize folds chunk c's stamps into its rows (and the added stamp,
// which is never set without the changed stamp).
func (t *colStamps) materialize(c int) {
	s := t.stamp[c]
	if s == 0 {
		return
	}
	lo := c << chunkShift
	hi := min(lo+chunkRows, len(t.rows))
	a := t.astamp[c]
	for r := lo; r < hi; r++ {
		t.rows[r] = stampPair{newest(t.rows[r].changed, s), newest(t.rows[r].added, a)}
	}
	for g := lo >> groupShift; g < (hi+groupRows-1)>>groupShift; g++ {
		t.max[g] = newest(t.max[g], s)
	}
	t.stamp[c], t.astamp[c] = 0, 0
}

// stampsOver reports whether chunk c has a stamp newer than changed or
// added, a row's stamps about to be written into it: the stamp must then be
// folded into the chunk's rows first (materialize), or it would pass for
// the row's. A filler as new as the chunk's stamps (rows of one batch
// spawn, despawned one by one) needs no fold.
func (t *colStamps) stampsOver(c int, changed, added uint32) bool {
	s := *u32At(t.stamp, c)
	return s != 0 && (newer(s, changed) || newer(*u32At(t.astamp, c), added))
}

// chunkOnly returns the stamps of row's chunk, and whether they are the
// row's: the chunk has an added stamp no older than the newest stamp of
// row's group (max bounds changed and added stamps both), so row's own
// stamps cannot be newer. Rows of a batch spawn not written one by one
// since are such rows: a despawn moving them need not read or write their
// row stamps, which would double the lines it touches.
func (t *colStamps) chunkOnly(row int) (changed, added uint32, ok bool) {
	c := row >> chunkShift
	changed, added = *u32At(t.stamp, c), *u32At(t.astamp, c)
	return changed, added, added != 0 && !newer(*u32At(t.max, row>>groupShift), added)
}

// push appends a row with the given stamps.
func (t *colStamps) push(changed, added uint32) {
	if !t.on {
		return
	}
	r := len(t.rows)
	if r == cap(t.rows) {
		t.ensure(r + 1)
	}
	if c := r >> chunkShift; t.stamp[c] != 0 {
		t.materialize(c)
	}
	t.rows = t.rows[:r+1]
	t.rows[r] = stampPair{changed, added}
	g := r >> groupShift
	t.max[g] = newest(t.max[g], changed)
	if t.log.on && newer(changed, t.log.from) {
		t.logRow(r, changed)
	}
}

// pushN appends n rows that were all changed and added at stamp, the newest
// stamp there is. Chunks holding new rows only get stamps, not a stamp per
// row: the stamps their slots hold from earlier rows are older than stamp,
// so the stamps decide. That takes in the last chunk, which the new rows
// fill up to the column's end: a row pushed after them folds the stamp into
// its chunk's rows first, as any push into a stamped chunk does (a batch of
// 16 rows made 16 stamps a column, now one). A column keeping a change log
// gets row stamps, which the log names, instead (stamps would restart it).
func (t *colStamps) pushN(n int, tick uint32) {
	if n <= 0 || !t.on {
		return
	}
	r := len(t.rows)
	t.ensure(r + n)
	if r&(chunkRows-1) != 0 {
		t.materialize(r >> chunkShift)
	}
	t.rows = t.rows[:r+n]
	lo, hi := r, r+n
	if t.log.on {
		if n >= t.logLimit()/2 {
			t.restartLog(tick)
		} else {
			for i := lo; i < hi; i++ {
				t.logRow(i, tick)
			}
		}
	} else {
		// The chunks from the first chunk boundary at or after lo to the
		// last, which the new rows fill to the end.
		c0, c1 := (lo+chunkRows-1)>>chunkShift, (hi+chunkRows-1)>>chunkShift
		for c := c0; c < c1; c++ {
			t.stamp[c], t.astamp[c] = tick, tick
		}
		if c0 < c1 {
			t.fillTicks(lo, c0<<chunkShift, tick)
			lo = hi
		}
	}
	t.fillTicks(lo, hi, tick)
}

// fillTicks gives rows [lo, hi) stamp as changed and added stamp.
func (t *colStamps) fillTicks(lo, hi int, tick uint32) {
	if lo >= hi {
		return
	}
	fresh := t.rows[lo:hi]
	for i := range fresh {
		fresh[i] = stampPair{tick, tick}
	}
	for g := lo >> groupShift; g <= (hi-1)>>groupShift; g++ {
		t.max[g] = tick
	}
}

// appendRows appends the first n rows of src's stamps as they are in
// effect (chunk stamps folded in), as n pushes would: the chunks the rows
// enter lose their old stamps first, group maxima and the change log
// follow. Rows are copied at once; stamps are folded chunk by chunk, and
// a group's maximum is taken from the maxima of the groups its rows came
// from (an upper bound, as maxima are).
func (t *colStamps) appendRows(src *colStamps, n int) {
	if n <= 0 || !t.on {
		return
	}
	r := len(t.rows)
	t.ensure(r + n)
	for c := r >> chunkShift; c <= (r+n-1)>>chunkShift; c++ {
		if t.stamp[c] != 0 {
			t.materialize(c)
		}
	}
	t.rows = t.rows[:r+n]
	rows := t.rows[r:]
	copy(rows, src.rows[:n])
	for c := 0; c <= (n-1)>>chunkShift; c++ {
		if s := src.stamp[c]; s != 0 {
			a := src.astamp[c]
			for i := c << chunkShift; i < min((c+1)<<chunkShift, n); i++ {
				rows[i] = stampPair{newest(rows[i].changed, s), newest(rows[i].added, a)}
			}
		}
	}
	for g := r >> groupShift; g <= (r+n-1)>>groupShift; g++ {
		lo, hi := max(g<<groupShift, r)-r, min((g+1)<<groupShift, r+n)-r // rows of src
		m := t.max[g]
		for sg := lo >> groupShift; sg <= (hi-1)>>groupShift; sg++ {
			m = newest(newest(m, src.max[sg]), src.stamp[sg>>(chunkShift-groupShift)])
		}
		t.max[g] = m
	}
	if t.log.on {
		for i, tp := range rows {
			if newer(tp.changed, t.log.from) {
				t.logRow(r+i, tp.changed)
			}
		}
	}
}

// takeRows trades rows with src while t has none: src's rows, with their
// chunk stamps and group maxima, which describe the same rows at the same
// places, become t's; src keeps t's empty room, whose old stamps are
// harmless (see colStamps). Neither may keep a change log: a log belongs
// to its column, not to the rows.
func (t *colStamps) takeRows(src *colStamps) {
	t.rows, src.rows = src.rows, t.rows[:0]
	t.stamp, src.stamp = src.stamp, t.stamp
	t.astamp, src.astamp = src.astamp, t.astamp
	t.max, src.max = src.max, t.max
}

// clearRows empties the stamps: every row left the table. Stamps and maxima
// of the emptied chunks stay, harmless (see colStamps).
func (t *colStamps) clearRows() {
	if t.log.on && len(t.rows) > 0 {
		t.log.moved()
	}
	t.rows = t.rows[:0]
}

// fillHole gives row the stamps of the last row, which fills it (row !=
// last), and returns its changed stamp. Stamps its chunk holds are not
// read or written row by row (chunkOnly), and the hole's chunk is folded
// only when its stamps would pass for the filler's (stampsOver).
func (t *colStamps) fillHole(row, last int) (changed uint32) {
	changed, added, ok := t.chunkOnly(last)
	if !ok {
		filler := *tickAt(t.header(), last)
		changed, added = newest(filler.changed, changed), newest(filler.added, added)
	}
	if cr := row >> chunkShift; cr != last>>chunkShift && t.stampsOver(cr, changed, added) {
		t.materialize(cr)
	}
	if c, a, ok := t.chunkOnly(row); !ok || c != changed || a != added {
		*tickAt(t.header(), row) = stampPair{changed, added}
	}
	gmax := u32At(t.max, row>>groupShift)
	*gmax = newest(*gmax, changed)
	return changed
}

// swapRemove removes row, moving the last row into its place.
func (t *colStamps) swapRemove(row int) {
	if !t.on {
		return
	}
	last := len(t.rows) - 1
	if t.log.on {
		t.log.moved()
	}
	if row != last {
		changed := t.fillHole(row, last)
		if t.log.on && newer(changed, t.log.from) {
			t.logRow(row, changed)
		}
	}
	t.rows = t.rows[:last]
}

// markRow records a write of one row at stamp, a query run's. A write made
// through a Map during the run has a newer stamp and stays: a row's stamp
// never goes back while it stays in its table.
func (t *colStamps) markRow(row int, tick uint32) {
	if !t.on {
		return
	}
	if t.log.on {
		t.logWrite(row, tick)
	}
	t.rows[row].changed = newest(t.rows[row].changed, tick)
	g := row >> groupShift
	t.max[g] = newest(t.max[g], tick)
}

// markWrite records a write of one row outside query runs, at the world's
// write stamp, which is newer than every stamp handed out so far.
func (t *colStamps) markWrite(row int, tick uint32) {
	if !t.on {
		return
	}
	if t.log.on {
		t.logWrite(row, tick)
	}
	t.rows[row].changed = tick
	t.max[row>>groupShift] = tick
}

// markRows records a write of rows [lo, hi) at stamp, stamping whole chunks.
func (t *colStamps) markRows(lo, hi int, tick uint32) {
	if !t.on {
		return
	}
	n := len(t.rows)
	restart := t.log.on // stamps are not logged: the log starts over
	for lo < hi {
		c := lo >> chunkShift
		cEnd := min((c+1)<<chunkShift, n)
		if lo == c<<chunkShift && hi >= cEnd {
			if restart {
				t.restartLog(tick)
				restart = false
			}
			t.stamp[c] = tick
			lo = cEnd
			continue
		}
		end := min(hi, cEnd)
		for r := lo; r < end; r++ {
			if t.log.on {
				t.logWrite(r, tick)
			}
			t.rows[r].changed = newest(t.rows[r].changed, tick)
		}
		for g := lo >> groupShift; g <= (end-1)>>groupShift; g++ {
			t.max[g] = newest(t.max[g], tick)
		}
		lo = end
	}
}

func (t *colStamps) changedSince(row int, since uint32) bool {
	return newer(t.rows[row].changed, since) || newer(t.stamp[row>>chunkShift], since)
}

func (t *colStamps) addedSince(row int, since uint32) bool {
	return newer(t.effectiveAdded(row), since)
}

// groupDirty reports whether any row of group g may have changed (or been
// added) after since.
func (t *colStamps) groupDirty(g int, since uint32) bool {
	return newer(t.max[g], since) || newer(t.stamp[g>>(chunkShift-groupShift)], since)
}

// nextChanged returns the first row at or after r, below n, whose changed
// stamp is newer than since, or n: a clean group of rows costs two
// comparisons, a dirty one a look at its rows.
func (t *colStamps) nextChanged(r, n int, since uint32) int {
	maxes, stamps, rows := t.max, t.stamp, t.rows[:n]
	for r < n {
		g := r >> groupShift
		s := stamps[g>>(chunkShift-groupShift)]
		if !newer(maxes[g], since) && !newer(s, since) {
			r = (g + 1) << groupShift
			continue
		}
		if newer(s, since) {
			return r
		}
		for end := min((g+1)<<groupShift, n); r < end; r++ {
			if newer(rows[r].changed, since) {
				return r
			}
		}
	}
	return n
}
