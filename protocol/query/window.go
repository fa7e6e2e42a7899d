package query

import (
	"container/heap"
	"slices"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// Window is a page's window over a query's matches: the rows from offset,
// at most limit, of the matches handed to Add in the world's order, or,
// with a sort key, of the matches in the key's order (stable: equal keys
// keep the world's order; rows without the field go last). It is the one
// paging and sorting rule of every evaluator of the query language: the
// agent's, the copy a heavy query is run on, and a recording's world; it
// pages by the kernel's own rule (protocol.Pager, generated from the
// kernel's), which pages what the kernel
// alone answers. A sorted window keeps the offset+limit best matches seen
// so far, not every match: O(n log k) for n matches and a window ending
// at k.
type Window[H any] struct {
	page  protocol.Pager // the paging rule, shared with the kernel's Scan
	key   *SortKey
	keyOf func(H) (protocol.Value, bool)
	rows  []H         // unsorted: the window itself
	best  bestHeap[H] // sorted: the offset+limit best so far
}

// NewWindow starts a window of at most limit rows from offset, paged as
// the kernel's Scan pages (protocol.Pager: a negative offset counts as 0, a
// negative limit keeps every row, 0 none); key, if not nil, sorts the
// matches by keyOf's value of each.
func NewWindow[H any](offset, limit int, key *SortKey, keyOf func(H) (protocol.Value, bool)) *Window[H] {
	w := &Window[H]{page: protocol.NewPager(offset, limit), key: key, keyOf: keyOf}
	w.best.key = key
	return w
}

// Add hands the window the next match, in the world's order.
func (w *Window[H]) Add(h H) {
	seq := w.page.Total()
	if w.key == nil {
		if lo, hi := w.page.Meet(1, len(w.rows)); lo < hi {
			w.rows = append(w.rows, h)
		}
		return
	}
	w.page.Meet(1, 0)
	keep := w.page.End() // -1: every match
	if keep == 0 || keep == w.page.Offset() {
		return
	}
	v, has := w.keyOf(h)
	m := ranked[H]{h: h, v: v, has: has, seq: seq}
	if keep < 0 || len(w.best.items) < keep {
		heap.Push(&w.best, m)
		return
	}
	if w.best.before(m, w.best.items[0]) { // better than the worst kept
		w.best.items[0] = m
		heap.Fix(&w.best, 0)
	}
}

// Total is how many matches were added.
func (w *Window[H]) Total() int { return w.page.Total() }

// Rows is the window, in page order.
func (w *Window[H]) Rows() []H {
	if w.key == nil {
		return w.rows
	}
	items := slices.Clone(w.best.items)
	slices.SortFunc(items, func(a, b ranked[H]) int {
		if w.best.before(a, b) {
			return -1
		}
		return 1
	})
	off := w.page.Offset()
	if off >= len(items) {
		return nil
	}
	out := make([]H, 0, len(items)-off)
	for _, m := range items[off:] {
		out = append(out, m.h)
	}
	return out
}

// ranked is a sorted window's match: its sort value, and its place in the
// world's order, which breaks ties.
type ranked[H any] struct {
	h   H
	v   protocol.Value
	has bool
	seq int
}

// bestHeap keeps the best matches with the worst on top.
type bestHeap[H any] struct {
	key   *SortKey
	items []ranked[H]
}

// before reports whether a comes before b on the page.
func (b *bestHeap[H]) before(x, y ranked[H]) bool {
	if c := b.key.Compare(x.v, x.has, y.v, y.has); c != 0 {
		return c < 0
	}
	return x.seq < y.seq
}

func (b *bestHeap[H]) Len() int           { return len(b.items) }
func (b *bestHeap[H]) Less(i, j int) bool { return b.before(b.items[j], b.items[i]) } // the worst on top
func (b *bestHeap[H]) Swap(i, j int)      { b.items[i], b.items[j] = b.items[j], b.items[i] }
func (b *bestHeap[H]) Push(x any)         { b.items = append(b.items, x.(ranked[H])) }
func (b *bestHeap[H]) Pop() any {
	n := len(b.items) - 1
	x := b.items[n]
	b.items = b.items[:n]
	return x
}
