package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Resources coded like components (a delta WorldBody's ResourcesChanged).
// A resource's numbers are every int, uint and float in its Value, in the
// order the value is written (depth first; a map's keys and values in
// order), each a lane of 8 bytes: an int as its two's complement, a uint as
// is, a float as the bits of its float64 (of its float32, for one that
// came as a float32). Its shape is everything else:
// kinds, lengths, strings, bools, and whether a float came from a float32.
// A resource whose shape stayed sends only the numbers that changed, coded
// against their prediction as a raw column's lanes are, and packed: a
// grid that grows by a step a frame costs a few bits a cell.

// ResourceChange is one resource's change in a delta WorldBody, by its
// place in the summary's list: the resource whole (Whole), or the numbers
// that changed (Rows and Raw).
type ResourceChange struct {
	At    int       `msgpack:"i"`
	Whole *Resource `msgpack:"w,omitempty"`
	// Rows is the numbers changed, by their place among the resource's
	// numbers, as a row set (AppendRows); Raw their new bits, predicted in
	// lanes of 8 and packed (AppendPacked).
	Rows []byte `msgpack:"r,omitempty"`
	Raw  []byte `msgpack:"x,omitempty"`
}

// AppendNumbers appends the bits of v's numbers, 8 bytes each,
// little-endian, in v's order: a float that came from a float32 as the
// bits of that float32, in the low 4 bytes (its steps are then steps in
// the lane, as a float32 column's are).
func AppendNumbers(dst []byte, v Value) []byte {
	switch v.kind {
	case KindInt, KindUint:
		return binary.LittleEndian.AppendUint64(dst, v.bits)
	case KindFloat:
		return binary.LittleEndian.AppendUint64(dst, numberBits(v))
	case KindList, KindMap:
		for _, it := range v.items() {
			dst = AppendNumbers(dst, it)
		}
	}
	return dst
}

// numberBits is a number's lane (AppendNumbers).
func numberBits(v Value) uint64 {
	if v.IsFloat32() {
		return uint64(math.Float32bits(float32(math.Float64frombits(v.bits))))
	}
	return v.bits
}

// withBits is the number v with the lane bits (AppendNumbers).
func withBits(v Value, bits uint64) Value {
	if v.IsFloat32() {
		return Float32Value(math.Float32frombits(uint32(bits)))
	}
	v.bits = bits
	return v
}

// SameShape reports whether a and b differ in their numbers' values at
// most: a change of b from a is then its numbers alone.
func SameShape(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case KindInt, KindUint:
		return true
	case KindFloat:
		return a.IsFloat32() == b.IsFloat32()
	case KindString, KindBytes:
		return a.s() == b.s()
	case KindList, KindMap:
		x, y := a.items(), b.items()
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !SameShape(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a.bits == b.bits
}

// WithChanged is shape with its numbers at rows (their places among its
// numbers, ascending) given the lanes vals (8 bytes each, in rows'
// order): shape itself is not changed. A row past shape's numbers is an
// error.
func WithChanged(shape Value, rows []int32, vals []byte) (Value, error) {
	c := changer{rows: rows, vals: vals}
	out := c.walk(shape)
	if c.next < len(rows) {
		return Value{}, fmt.Errorf("number %d changed, of %d", rows[c.next], c.seen)
	}
	return out, nil
}

// changer walks a value's numbers, counting them, and puts in the
// changed ones.
type changer struct {
	rows []int32
	vals []byte
	seen int // numbers walked
	next int // the next of rows
}

func (c *changer) walk(v Value) Value {
	switch v.kind {
	case KindInt, KindUint, KindFloat:
		if c.next < len(c.rows) && int(c.rows[c.next]) == c.seen {
			v = withBits(v, binary.LittleEndian.Uint64(c.vals[8*c.next:]))
			c.next++
		}
		c.seen++
		return v
	case KindList, KindMap:
		items := v.items()
		if c.next >= len(c.rows) || !holdsNumbers(items) {
			return v // nothing left to change here, so no count needed
		}
		out := make([]Value, len(items))
		for i, it := range items {
			out[i] = c.walk(it)
		}
		return makeItems(v.kind, out)
	}
	return v
}

// holdsNumbers reports whether any of items is or holds a number: a
// list of strings is shared, not copied.
func holdsNumbers(items []Value) bool {
	for _, it := range items {
		switch it.kind {
		case KindInt, KindUint, KindFloat:
			return true
		case KindList, KindMap:
			if holdsNumbers(it.items()) {
				return true
			}
		}
	}
	return false
}

// changedNumbers is the rows at which next's numbers differ from now's.
func changedNumbers(now, next []byte) []int32 {
	var changed []int32
	for i := 0; i+8 <= len(next) && i+8 <= len(now); i += 8 {
		if binary.LittleEndian.Uint64(next[i:]) != binary.LittleEndian.Uint64(now[i:]) {
			changed = append(changed, int32(i/8))
		}
	}
	return changed
}

// CodeNumbers is the change of a resource's numbers from now (the
// reader's, AppendNumbers' bits) to next (as many): changed, the rows
// that differ; vals, their new lanes; rows, changed as a row set; raw,
// vals predicted from now and before (the reader's numbers before those,
// as many, or nil: the same as now) and packed. No change: all nil.
func CodeNumbers(now, before, next []byte) (changed []int32, vals, rows, raw []byte) {
	changed = changedNumbers(now, next)
	if len(changed) == 0 {
		return nil, nil, nil, nil
	}
	vals = gatherLanes(next, changed)
	return changed, vals, AppendRows(nil, changed, len(next)/8), AppendPacked(nil, vals, gatherLanes(now, changed), gatherLanes(before, changed), 8, 8)
}

// UndoNumbers reads a change CodeNumbers coded against now and before
// (as CodeNumbers took them): the rows it writes and their new lanes.
func UndoNumbers(now, before, rows, raw []byte, budget *AllocBudget) (changed []int32, vals []byte, err error) {
	changed, err = DecodeRows(rows, len(now)/8, budget)
	if err != nil {
		return nil, nil, err
	}
	if len(changed) == 0 {
		return nil, nil, errors.New("a resource change with no numbers")
	}
	if err := budget.Take(len(changed), 24, "bytes of numbers"); err != nil {
		return nil, nil, err
	}
	vals = make([]byte, 8*len(changed))
	if err := UndoPacked(vals, raw, gatherLanes(now, changed), gatherLanes(before, changed), 8); err != nil {
		return nil, nil, err
	}
	return changed, vals, nil
}

// StepNumbers writes the lanes vals at rows into now, in place, and
// returns the numbers before now's after that (before, or a copy of now
// when nil, with the rows' old lanes): a number written has its last
// value as the one before; one not written keeps both.
func StepNumbers(now, before []byte, rows []int32, vals []byte) []byte {
	if before == nil {
		before = append([]byte(nil), now...)
	}
	for i, r := range rows {
		at := 8 * int(r)
		copy(before[at:at+8], now[at:at+8])
		copy(now[at:at+8], vals[8*i:8*i+8])
	}
	return before
}

// gatherLanes is the 8-byte lanes of b at rows; nil for a nil b.
func gatherLanes(b []byte, rows []int32) []byte {
	if b == nil {
		return nil
	}
	return Gather(b, rows, 8)
}

// Gather collects the values of rows (size bytes each) from raw; rows
// past raw's end are zeros.
func Gather(raw []byte, rows []int32, size int) []byte {
	out := make([]byte, len(rows)*size)
	for i, r := range rows {
		if end := int(r+1) * size; end <= len(raw) {
			copy(out[i*size:], raw[int(r)*size:end])
		}
	}
	return out
}
