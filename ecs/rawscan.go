package ecs

import "unsafe"

// Testing bounds over runs of rows.
//
// A watchpoint's check after a system walks the rows the system wrote; a
// system that writes a column through a query stamps whole chunks, so
// most of what it wrote comes as chunks of 64 rows all written. For those
// the bounds are tested over the chunk's values in a loop of their own,
// one per kind and operator (scanBound), without a call per row; rows
// written one by one go through the row-by-row path.

// boundScanner tests a component's bounds over contiguous rows.
type boundScanner struct {
	bounds []RawBound
	size   int
	hits   []int32 // scratch: the rows of a run that passed so far
}

// scan returns the rows of [0, n) from p on, stride size, that pass every
// bound, as offsets from p's row; the slice is reused by the next scan.
func (s *boundScanner) scan(p unsafe.Pointer, n int) []int32 {
	s.hits = s.hits[:0]
	for i := range n {
		s.hits = append(s.hits, int32(i))
	}
	for i := range s.bounds {
		if s.hits = s.bounds[i].keep(p, s.size, s.hits); len(s.hits) == 0 {
			break
		}
	}
	return s.hits
}

// scanBound keeps the rows of in whose value at q (a row's field, stride
// apart) passes op against v, compared as float64: the one comparison of
// a RawBound, over one row (RawBound.holds) or many (boundScanner).
func scanBound[T float32 | float64 | int32 | int64 | uint32 | uint64](q unsafe.Pointer, stride int, op CmpOp, v float64, in []int32) []int32 {
	out := in[:0]
	at := func(r int32) float64 { return float64(*(*T)(unsafe.Add(q, int(r)*stride))) }
	switch op {
	case Less:
		for _, r := range in {
			if at(r) < v {
				out = append(out, r)
			}
		}
	case LessEqual:
		for _, r := range in {
			if at(r) <= v {
				out = append(out, r)
			}
		}
	case Greater:
		for _, r := range in {
			if at(r) > v {
				out = append(out, r)
			}
		}
	case GreaterEqual:
		for _, r := range in {
			if at(r) >= v {
				out = append(out, r)
			}
		}
	case Equal:
		for _, r := range in {
			if at(r) == v {
				out = append(out, r)
			}
		}
	case NotEqual:
		for _, r := range in {
			if at(r) != v {
				out = append(out, r)
			}
		}
	default:
		return in[:0]
	}
	return out
}

// eachChangedPassing is eachChangedRow for the rows that pass the
// scanner's bounds: chunks written whole since since are scanned as runs
// (with no until, the common case of a check after a system), the rest
// row by row.
func (w *World) eachChangedPassing(id ComponentID, since, until uint32, s *boundScanner, pass func(unsafe.Pointer) bool, fn func(e Entity, raw []byte) bool) {
	w.trackChanges(id)
	if until != 0 {
		w.eachChangedRow(id, since, until, pass, fn)
		return
	}
	size := s.size
	for _, t := range w.tables {
		j := t.column(id)
		if j < 0 || t.len() == 0 {
			continue
		}
		c, ticks, n := &t.raw[j], t.ticks[j], t.len()
		for r := ticks.nextChanged(0, n, since); r < n; {
			chunk := r >> chunkShift
			end := min((chunk+1)<<chunkShift, n)
			if r == chunk<<chunkShift && newer(ticks.stamp[chunk], since) { // the whole chunk was written
				base := c.at(r)
				for _, k := range s.scan(base, end-r) {
					row := r + int(k)
					var raw []byte
					if size > 0 {
						raw = unsafe.Slice((*byte)(c.at(row)), size)
					}
					if !fn(t.entities[row], raw) {
						return
					}
				}
				r = ticks.nextChanged(end, n, since)
				continue
			}
			p := c.at(r)
			if pass(p) {
				var raw []byte
				if size > 0 {
					raw = unsafe.Slice((*byte)(p), size)
				}
				if !fn(t.entities[r], raw) {
					return
				}
			}
			r = ticks.nextChanged(r+1, n, since)
		}
	}
}
