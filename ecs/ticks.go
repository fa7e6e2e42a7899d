package ecs

// Change detection.
//
// Every table column keeps, per row, the tick its value was last written
// (changed) and the tick the component was added to the entity (added). Ticks
// come from World.changeTick, which advances once per query run; writes made
// by a run carry its tick, and writes made outside any run carry the tick the
// next run will get. A query's Changed/Added filters pass rows whose tick is
// newer than the query's previous run, so nothing is ever cleared per frame.
//
// Writing a tick per row per entity would cost a store in the hottest loop. So
// rows are grouped in chunks of chunkRows, and a query that hands out every
// row of a chunk for writing stamps the chunk once instead (stamp). A row's
// effective changed tick is the newer of its own and its chunk's stamp. A
// stamp covers the rows present when it was set; before a row enters a
// stamped chunk (append, or swap-remove filling a hole) the stamp is folded
// into the chunk's rows (materialize), at most once per stamp. Change
// granularity is therefore exactly one row, at no per-entity cost.
//
// max holds, per group of groupRows rows, a conservative newest changed tick
// of its rows, so a Changed or Added scan skips a clean group with one
// comparison. Groups are finer than chunks: with 1% of rows written at
// random, 8% of groups are dirty but half of all chunks.

const (
	chunkShift = 6
	chunkRows  = 1 << chunkShift
	groupShift = 3
	groupRows  = 1 << groupShift
)

// newer reports whether tick a is after tick b, wrap-around safe.
func newer(a, b uint32) bool { return int32(a-b) > 0 }

func newest(a, b uint32) uint32 {
	if newer(b, a) {
		return b
	}
	return a
}

type colTicks struct {
	changed []uint32
	added   []uint32
	stamp   []uint32 // per chunk
	max     []uint32 // per group
}

func (t *colTicks) effective(row int) uint32 {
	return newest(t.changed[row], t.stamp[row>>chunkShift])
}

func (t *colTicks) materialize(c int) {
	s := t.stamp[c]
	if s == 0 {
		return
	}
	lo := c << chunkShift
	hi := min(lo+chunkRows, len(t.changed))
	for r := lo; r < hi; r++ {
		t.changed[r] = newest(t.changed[r], s)
	}
	for g := lo >> groupShift; g < (hi+groupRows-1)>>groupShift; g++ {
		t.max[g] = newest(t.max[g], s)
	}
	t.stamp[c] = 0
}

// push appends a row with the given ticks.
func (t *colTicks) push(changed, added uint32) {
	r := len(t.changed)
	if c := r >> chunkShift; c == len(t.stamp) {
		t.stamp = append(t.stamp, 0)
	} else if t.stamp[c] != 0 {
		t.materialize(c)
	}
	g := r >> groupShift
	if g == len(t.max) {
		t.max = append(t.max, 0)
	}
	t.changed = append(t.changed, changed)
	t.added = append(t.added, added)
	t.max[g] = newest(t.max[g], changed)
}

// pushN appends n rows that were all changed and added at tick.
func (t *colTicks) pushN(n int, tick uint32) {
	if n <= 0 {
		return
	}
	r := len(t.changed)
	if r&(chunkRows-1) != 0 {
		t.materialize(r >> chunkShift)
	}
	t.changed = growFill(t.changed, n, tick)
	t.added = growFill(t.added, n, tick)
	for chunks := (len(t.changed) + chunkRows - 1) >> chunkShift; len(t.stamp) < chunks; {
		t.stamp = append(t.stamp, 0)
	}
	groups := (len(t.changed) + groupRows - 1) >> groupShift
	for len(t.max) < groups {
		t.max = append(t.max, 0)
	}
	for g := r >> groupShift; g < groups; g++ {
		t.max[g] = newest(t.max[g], tick)
	}
}

func growFill(s []uint32, n int, v uint32) []uint32 {
	if need := len(s) + n; need > cap(s) {
		grown := make([]uint32, len(s), max(need, 2*cap(s)))
		copy(grown, s)
		s = grown
	}
	old := len(s)
	s = s[:old+n]
	for i := old; i < len(s); i++ {
		s[i] = v
	}
	return s
}

// swapRemove removes row, moving the last row into its place.
func (t *colTicks) swapRemove(row int) {
	last := len(t.changed) - 1
	if row != last {
		moved := t.effective(last)
		cr := row >> chunkShift
		if cr != last>>chunkShift {
			t.materialize(cr)
		}
		t.changed[row] = moved
		t.added[row] = t.added[last]
		g := row >> groupShift
		t.max[g] = newest(t.max[g], moved)
	}
	t.changed = t.changed[:last]
	t.added = t.added[:last]
	if last&(chunkRows-1) == 0 {
		t.stamp = t.stamp[:last>>chunkShift]
	}
	if last&(groupRows-1) == 0 {
		t.max = t.max[:last>>groupShift]
	}
}

// markRow records a write of one row at tick.
func (t *colTicks) markRow(row int, tick uint32) {
	t.changed[row] = tick
	g := row >> groupShift
	t.max[g] = newest(t.max[g], tick)
}

// markWrite records a write of one row outside query runs, at the world's
// write tick, which is newer than every tick handed out so far.
func (t *colTicks) markWrite(row int, tick uint32) {
	t.changed[row] = tick
	t.max[row>>groupShift] = tick
}

// markRows records a write of rows [lo, hi) at tick, stamping whole chunks.
func (t *colTicks) markRows(lo, hi int, tick uint32) {
	n := len(t.changed)
	for lo < hi {
		c := lo >> chunkShift
		cEnd := min((c+1)<<chunkShift, n)
		if lo == c<<chunkShift && hi >= cEnd {
			t.stamp[c] = tick
			lo = cEnd
			continue
		}
		end := min(hi, cEnd)
		for r := lo; r < end; r++ {
			t.changed[r] = tick
		}
		for g := lo >> groupShift; g <= (end-1)>>groupShift; g++ {
			t.max[g] = newest(t.max[g], tick)
		}
		lo = end
	}
}

func (t *colTicks) changedSince(row int, since uint32) bool {
	return newer(t.changed[row], since) || newer(t.stamp[row>>chunkShift], since)
}

func (t *colTicks) addedSince(row int, since uint32) bool {
	return newer(t.added[row], since)
}

// groupDirty reports whether any row of group g may have changed (or been
// added) after since.
func (t *colTicks) groupDirty(g int, since uint32) bool {
	return newer(t.max[g], since) || newer(t.stamp[g>>(chunkShift-groupShift)], since)
}

func (t *colTicks) reserve(extra int) {
	t.changed = growCap(t.changed, extra)
	t.added = growCap(t.added, extra)
}

func growCap(s []uint32, extra int) []uint32 {
	if need := len(s) + extra; need > cap(s) {
		grown := make([]uint32, len(s), max(need, 2*cap(s)))
		copy(grown, s)
		return grown
	}
	return s
}
