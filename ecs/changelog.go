package ecs

import (
	"math/bits"
	"slices"
)

// Change logs.
//
// A Changed query normally finds its rows by reading every group maximum of
// the column (stamps.go): two comparisons per 8 rows, a quarter of a full
// pass's time on a million rows however few changed, and then 8 row ticks
// per dirty group to find the one row that changed. For a component written
// here and there (1% of rows per frame, at random) that is most of the work.
// So a column that a Changed query watches also keeps a log: each time a
// row's changed tick is set to a tick newer than from, the row and the tick
// are appended. A query whose previous run is covered by the log (its since
// is not older than from) visits just the logged rows, in row order, and
// checks each one's tick as the scan would: the log says where to look,
// never what passes. So a row that moved after it was logged (swap-remove
// fills holes) costs a look and is dropped, or is counted once if its new
// occupant changed too; and every row whose tick is newer than from was
// logged when it got that tick, wherever it has moved since (moves log the
// row's new place). Until a row leaves the table, a row's changed tick only
// grows, so a logged tick newer than since is proof enough: the look at
// the row's tick is needed only when rows left after the oldest entry the
// query reads (movedAt), which saves a cache miss per row.
//
// The log is bounded. When it fills, entries every reader has already seen
// go; if that frees too little, the readers that ran longest ago are given
// up on; failing that, or when a chunk is stamped (a query wrote every row,
// so a scan is the right tool anyway), it starts over. Each time from moves
// forward, and a query whose previous run is older than from scans instead,
// once.

// changeLog is one column's log of rows whose changed tick was set.
type changeLog struct {
	on      bool
	from    uint32 // the log names every row whose changed tick is newer than from
	top     uint32 // the newest tick logged
	movedAt uint32 // top when a row last left the table: entries up to it may name moved rows
	entries []logEntry
	// unordered is set when an entry was appended with a tick older than
	// the one before it; until then a reader finds its first entry by
	// binary search rather than reading the ones it has seen.
	unordered bool
	readers   *changeReaders // the Changed queries on this component
}

// logEntry says row's changed tick was set to tick.
type logEntry struct{ row, tick uint32 }

// changeReaders lists the Changed queries on one component: their previous
// runs tell which entries of its columns' logs are still wanted.
type changeReaders struct{ queries []*queryState }

// minLogEntries is the smallest log bound. Beyond it a column logs at most
// one row in 16 of its capacity: about where reading the log and sorting
// its rows costs what a scan does.
const minLogEntries = 256

// logLimit bounds the log's entries.
func (t *colStamps) logLimit() int { return max(minLogEntries, cap(t.rows)>>4) }

// enableLog starts logging rows whose changed tick is set after tick.
func (t *colStamps) enableLog(tick uint32, readers *changeReaders) {
	if t.log.on {
		return
	}
	t.log.on, t.log.from, t.log.top, t.log.readers = true, tick, tick, readers
}

// logRow appends that row's changed tick was set to tick.
func (t *colStamps) logRow(row int, tick uint32) {
	l := &t.log
	if limit := t.logLimit(); len(l.entries) >= limit {
		l.trim(limit)
	}
	if newer(l.top, tick) {
		l.unordered = true
	}
	l.entries = append(l.entries, logEntry{uint32(row), tick})
	l.top = newest(l.top, tick)
}

// logWrite logs a write of row at tick, which is about to be stored: once
// per row and tick, only when it makes the row's tick newer, and only when
// the log is to name it.
func (t *colStamps) logWrite(row int, tick uint32) {
	if newer(tick, t.log.from) && newer(tick, t.rows[row].changed) {
		t.logRow(row, tick)
	}
}

// restartLog forgets every entry: from now on the log is complete only for
// ticks newer than tick and everything logged so far.
func (t *colStamps) restartLog(tick uint32) {
	l := &t.log
	l.from = newest(l.from, newest(l.top, tick))
	l.top = l.from
	l.entries = l.entries[:0]
	l.unordered = false
}

// trim makes room in a full log. Entries no reader will look at again (not
// newer than every reader's previous run) go. If that leaves more than half
// of limit, the readers that ran longest ago are given up on, one by one
// (their next run scans); failing that, the log starts over.
func (l *changeLog) trim(limit int) {
	var cuts []uint32
	if l.readers != nil {
		for _, q := range l.readers.queries {
			if q.logSeen != 0 && newer(q.logSeen, l.from) {
				cuts = append(cuts, q.logSeen)
			}
		}
	}
	slices.SortFunc(cuts, func(a, b uint32) int { return int(int32(a - b)) })
	for _, cut := range cuts {
		kept := 0
		for _, e := range l.entries {
			if newer(e.tick, cut) {
				kept++
			}
		}
		if kept > limit/2 {
			continue
		}
		l.entries = slices.DeleteFunc(l.entries, func(e logEntry) bool { return !newer(e.tick, cut) })
		l.from = cut
		return
	}
	l.from = newest(l.from, l.top)
	l.entries = l.entries[:0]
	l.unordered = false
}

// moved notes that a row is leaving the table (swap-remove).
func (l *changeLog) moved() { l.movedAt = l.top }

// covers reports whether the log names every row changed after since.
func (l *changeLog) covers(since uint32) bool { return l.on && !newer(l.from, since) }

// dirtyRows sets in rows the bit of every row below n that the log names
// with a tick newer than since, and in words the bit of every word of rows
// it set a bit in.
func (l *changeLog) dirtyRows(since uint32, n int, b dirtyBits) {
	entries := l.entries
	if !l.unordered {
		first, _ := slices.BinarySearchFunc(entries, since, func(e logEntry, since uint32) int {
			if newer(e.tick, since) {
				return 1
			}
			return -1
		})
		entries = entries[first:]
	}
	for _, e := range entries {
		if r := int(e.row); newer(e.tick, since) && r < n {
			b.rows[r>>6] |= 1 << (r & 63)
			b.words[r>>12] |= 1 << ((r >> 6) & 63)
		}
	}
}

// dirtyBits is a set of rows: a bit per row, and a bit per word of those,
// so that taking the rows out in order skips empty words 64 at a time.
type dirtyBits struct {
	rows, words []uint64
}

// sized returns b with room for n rows, all clear.
func (b dirtyBits) sized(n int) dirtyBits {
	nr := (n + 63) >> 6
	nw := (nr + 63) >> 6
	if cap(b.rows) < nr {
		b.rows = make([]uint64, nr)
	}
	if cap(b.words) < nw {
		b.words = make([]uint64, nw)
	}
	return dirtyBits{b.rows[:nr], b.words[:nw]}
}

// pop moves up to len(out) rows of b, from word-of-words *at on, into out
// in ascending order, clearing their bits; it returns how many it moved.
func (b dirtyBits) pop(at *int, out []int32) int {
	n, i := 0, *at
	for ; i < len(b.words); i++ {
		for ws := b.words[i]; ws != 0; ws &= ws - 1 {
			wi := i<<6 + bits.TrailingZeros64(ws)
			word := b.rows[wi]
			for ; word != 0; word &= word - 1 {
				if n == len(out) {
					b.rows[wi] = word
					b.words[i] = ws
					*at = i
					return n
				}
				out[n] = int32(wi<<6 + bits.TrailingZeros64(word))
				n++
			}
			b.rows[wi] = 0
		}
		b.words[i] = 0
	}
	*at = i
	return n
}

// clearFrom clears every bit from word-of-words at on.
func (b dirtyBits) clearFrom(at int) {
	for i := at; i < len(b.words); i++ {
		for ws := b.words[i]; ws != 0; ws &= ws - 1 {
			b.rows[i<<6+bits.TrailingZeros64(ws)] = 0
		}
		b.words[i] = 0
	}
}
