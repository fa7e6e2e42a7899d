package ecs

import "unsafe"

// Structural changes (a row moving between tables, a despawn) touch every
// column of a row. Through the column interface that is one dynamic call per
// column, into generic code. For the usual component, a struct with no
// pointers, a row's value is just bytes: rawCol moves them with one copy
// through the column's slice header, no call, no type switch. Columns whose
// type holds pointers, and columns that must grow, take the typed path so
// the garbage collector sees every pointer write.

// sliceHeader is the layout of every Go slice.
type sliceHeader struct {
	ptr      unsafe.Pointer
	len, cap int
}

// rawCol is a pointer-free column seen as bytes: its slice header, the
// size of one value, and its ticks. ok is false for other columns.
type rawCol struct {
	hdr   *sliceHeader
	size  uintptr
	ticks *colTicks
	ok    bool
}

func (c *typedColumn[T]) raw() rawCol {
	if c.pointers {
		return rawCol{}
	}
	var zero T
	return rawCol{hdr: (*sliceHeader)(unsafe.Pointer(&c.data)), size: unsafe.Sizeof(zero), ticks: &c.t, ok: true}
}

func (c *rawCol) at(row int) unsafe.Pointer { return unsafe.Add(c.hdr.ptr, uintptr(row)*c.size) }

// copyBytes copies size bytes from src to dst (which do not overlap).
func copyBytes(dst, src unsafe.Pointer, size uintptr) {
	switch size {
	case 0:
	case 8:
		*(*[8]byte)(dst) = *(*[8]byte)(src)
	case 16:
		*(*[16]byte)(dst) = *(*[16]byte)(src)
	default:
		copy(unsafe.Slice((*byte)(dst), size), unsafe.Slice((*byte)(src), size))
	}
}

// roomFor reports whether one more row fits without growing.
func (c *rawCol) roomFor() bool { return c.hdr.len < c.hdr.cap }

// moveFrom appends row of s (a column of the same type) and swap-removes it
// from s, as typedColumn.moveFrom does, ticks included, in one call with
// no calls on its usual path. The caller checked roomFor. Values and ticks
// of a live column always have the same length, so rows are reached
// without bounds checks and lengths change without rewriting slice
// headers.
func (c *rawCol) moveFrom(s *rawCol, row int) {
	sh, dh, size := s.hdr, c.hdr, c.size
	last, n := sh.len-1, dh.len
	copyBytes(unsafe.Add(dh.ptr, uintptr(n)*size), unsafe.Add(sh.ptr, uintptr(row)*size), size)
	dh.len = n + 1
	st, dt := s.ticks, c.ticks
	srows, drows := st.rows, dt.header()
	moving := *tickAt(unsafe.Pointer(unsafe.SliceData(srows)), row)
	changed := newest(moving.changed, st.stamp[row>>chunkShift])
	if n < drows.cap && dt.stamp[n>>chunkShift] == 0 {
		*tickAt(drows.ptr, n) = tickPair{changed, moving.added}
		drows.len = n + 1
		g := n >> groupShift
		dt.max[g] = newest(dt.max[g], changed)
	} else {
		dt.push(changed, moving.added)
	}
	s.swapRemove(row, last) // the last row fills the hole, value and ticks
}

// header is the rows slice's header, to change its length in place.
func (t *colTicks) header() *sliceHeader { return (*sliceHeader)(unsafe.Pointer(&t.rows)) }

// tickAt is row i of a ticks array, unchecked.
func tickAt(base unsafe.Pointer, i int) *tickPair {
	return (*tickPair)(unsafe.Add(base, uintptr(i)*unsafe.Sizeof(tickPair{})))
}

// swapRemove moves the last row into row, value and ticks, in one call.
func (c *rawCol) swapRemove(row, last int) {
	c.hdr.len = last
	t := c.ticks
	rows := t.header()
	if row != last {
		copyBytes(c.at(row), c.at(last), c.size)
		if cr := row >> chunkShift; t.stamp[cr] != 0 && cr != last>>chunkShift {
			t.materialize(cr)
		}
		filler := *tickAt(rows.ptr, last)
		fillerChanged := newest(filler.changed, t.stamp[last>>chunkShift])
		*tickAt(rows.ptr, row) = tickPair{fillerChanged, filler.added}
		g := row >> groupShift
		t.max[g] = newest(t.max[g], fillerChanged)
	}
	rows.len = last
}

// pushZero appends a zero value changed and added at tick. The caller
// checked roomFor.
func (c *rawCol) pushZero(tick uint32) {
	if c.size > 0 {
		clear(unsafe.Slice((*byte)(c.at(c.hdr.len)), c.size))
	}
	c.hdr.len++
	c.ticks.push(tick, tick)
}
