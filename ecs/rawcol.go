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
// size of one value, its ticks (nil while it keeps none, tracking.go) and
// its dirty mark (typedColumn.dirty). ok is false for other columns.
type rawCol struct {
	hdr   *sliceHeader
	size  uintptr
	ticks *colStamps
	dirty *int
	ok    bool
}

func (c *typedColumn[T]) raw() rawCol {
	if c.pointers {
		return rawCol{}
	}
	var zero T
	var ticks *colStamps
	if c.t.on {
		ticks = &c.t
	}
	return rawCol{hdr: (*sliceHeader)(unsafe.Pointer(&c.data)), size: unsafe.Sizeof(zero), ticks: ticks, dirty: &c.dirty, ok: true}
}

func (c *rawCol) at(row int) unsafe.Pointer {
	if debugChecks {
		debugIndex("raw column", row, c.hdr.cap)
	}
	return unsafe.Add(c.hdr.ptr, uintptr(row)*c.size)
}

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

// zeroBytes clears size bytes at p.
func zeroBytes(p unsafe.Pointer, size uintptr) {
	switch size {
	case 0:
	case 8:
		*(*[8]byte)(p) = [8]byte{}
	case 16:
		*(*[16]byte)(p) = [16]byte{}
	default:
		clear(unsafe.Slice((*byte)(p), size))
	}
}

// clearTaken clears the rows [lo, hi) a push takes that lie below the
// dirty mark: the rows past it are zero.
func (c *rawCol) clearTaken(lo, hi int) {
	c.clearRows(lo, min(hi, *c.dirty))
	if debugChecks {
		debugZeroRows(c, lo, hi-lo)
	}
}

// clearRows clears rows [lo, hi).
func (c *rawCol) clearRows(lo, hi int) {
	if hi > lo && c.size > 0 {
		clear(unsafe.Slice((*byte)(c.at(lo)), uintptr(hi-lo)*c.size))
	}
}

// clearTakenRow is clearTaken of the one row a push takes.
func (c *rawCol) clearTakenRow(row int) {
	if row < *c.dirty {
		zeroBytes(c.at(row), c.size)
	}
	if debugChecks {
		debugZeroRows(c, row, 1)
	}
}

// left notes that row, the last, left the column with its value in place.
func (c *rawCol) left(row int) {
	if *c.dirty <= row {
		*c.dirty = row + 1
	}
}

// roomFor reports whether one more row fits without growing.
func (c *rawCol) roomFor() bool { return c.hdr.len < c.hdr.cap }

// pushTicksFast appends a row's stamps to t, whose length is n, when the
// row fits and enters an unstamped chunk, and reports whether it did;
// else the row goes through push (growth, or a chunk's stamp folded in
// first). It inlines, so the loops that push a row per column (pushZero,
// moveRowFrom) make no call per column. The row is not logged
// (changelog.go): a table logs its new rows once for all its columns.
func pushTicksFast(t *colStamps, n int, changed, added uint32) bool {
	if n >= cap(t.rows) || t.stamp[n>>chunkShift] != 0 {
		return false
	}
	t.rows = t.rows[:n+1]
	t.rows[n] = stampPair{changed, added}
	if g := &t.max[n>>groupShift]; newer(changed, *g) {
		*g = changed
	}
	return true
}

// header is the rows slice's header, to change its length in place.
func (t *colStamps) header() *sliceHeader { return (*sliceHeader)(unsafe.Pointer(&t.rows)) }

// u32At is s[i], unchecked: for stamp and max, which are sized for the
// capacity of rows, when i comes from a row below that capacity.
func u32At(s []uint32, i int) *uint32 {
	if debugChecks {
		debugIndex("stamp or group maximum", i, cap(s))
	}
	return (*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), uintptr(i)*4))
}

// tickAt is row i of a ticks array (by its header), unchecked: for a row
// below the array's capacity.
func tickAt(rows *sliceHeader, i int) *stampPair {
	if debugChecks {
		debugIndex("change stamps", i, rows.cap)
	}
	return (*stampPair)(unsafe.Add(rows.ptr, uintptr(i)*unsafe.Sizeof(stampPair{})))
}

// valueAt is &s[i], unchecked: for a live entity's row, which its record
// keeps below the column's length.
func valueAt[T any](s []T, i int) *T {
	if debugChecks {
		debugIndex("column", i, len(s))
	}
	var zero T
	return (*T)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), uintptr(i)*unsafe.Sizeof(zero)))
}
