package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Resources coded like components (a delta WorldBody's ResourcesChanged).
// A resource's numbers are every int, uint and float in its Value, in the
// order the value is written (depth first; a map's keys and values in
// order), each a lane of 8 bytes: an int as its two's complement, a uint as
// is, a float as the bits of its float64. Its shape is everything else:
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
// little-endian, in v's order.
func AppendNumbers(dst []byte, v Value) []byte {
	switch v.kind {
	case KindInt, KindUint, KindFloat:
		return binary.LittleEndian.AppendUint64(dst, v.bits)
	case KindList, KindMap:
		for _, it := range v.items() {
			dst = AppendNumbers(dst, it)
		}
	}
	return dst
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

// WithNumbers is shape with its numbers replaced by nums (AppendNumbers'
// bits, exactly as many as shape has): shape itself is not changed.
func WithNumbers(shape Value, nums []byte) (Value, error) {
	out, rest := withNumbers(shape, nums)
	if len(rest) != 0 {
		return Value{}, fmt.Errorf("%d bytes of numbers left over", len(rest))
	}
	return out, nil
}

func withNumbers(v Value, nums []byte) (Value, []byte) {
	switch v.kind {
	case KindInt, KindUint, KindFloat:
		if len(nums) < 8 {
			return v, nil
		}
		v.bits = binary.LittleEndian.Uint64(nums)
		return v, nums[8:]
	case KindList, KindMap:
		items := v.items()
		if !holdsNumbers(items) {
			return v, nums
		}
		out := make([]Value, len(items))
		for i, it := range items {
			out[i], nums = withNumbers(it, nums)
		}
		return makeItems(v.kind, out), nums
	}
	return v, nums
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

// CodeNumbers is the change of a resource's numbers from now (the
// reader's, AppendNumbers' bits) to next (as many): changed, the rows
// that differ; rows, those as a row set; raw, their new bits predicted
// from now and before (the reader's numbers before those, as many, or
// nil: the same as now) and packed. No change: all nil.
func CodeNumbers(now, before, next []byte) (changed []int32, rows, raw []byte) {
	changed = ChangedNumbers(now, next)
	if len(changed) == 0 {
		return nil, nil, nil
	}
	vals, base := gatherLanes(next, changed), gatherLanes(now, changed)
	var prev []byte
	if before != nil {
		prev = gatherLanes(before, changed)
	}
	return changed, AppendRows(nil, changed, len(next)/8), AppendPacked(nil, vals, base, prev, 8, 8)
}

// UndoNumbers applies a change CodeNumbers coded to now and before (as
// CodeNumbers took them; neither is changed) and returns the numbers
// after it and the ones before those: a number the change writes has its
// last value as the one before, one it does not keeps both.
func UndoNumbers(now, before, rows, raw []byte, budget *AllocBudget) (next, prevNext []byte, err error) {
	n := len(now) / 8
	changed, err := DecodeRows(rows, n, budget)
	if err != nil {
		return nil, nil, err
	}
	if len(changed) == 0 {
		return nil, nil, errors.New("a resource change with no numbers")
	}
	if err := budget.Take(2*len(now)+24*len(changed), 1, "bytes of numbers"); err != nil {
		return nil, nil, err
	}
	vals := make([]byte, 8*len(changed))
	base := gatherLanes(now, changed)
	var prev []byte
	if before != nil {
		prev = gatherLanes(before, changed)
	}
	if err := UndoPacked(vals, raw, base, prev, 8); err != nil {
		return nil, nil, err
	}
	next, prevNext = AdvanceNumbers(now, before, changed, vals)
	return next, prevNext, nil
}

// AdvanceNumbers is now and before after the numbers at rows take vals
// (8 bytes each, in rows' order): new slices, now and before unchanged.
func AdvanceNumbers(now, before []byte, rows []int32, vals []byte) (next, prevNext []byte) {
	next = append([]byte(nil), now...)
	if before == nil {
		prevNext = append([]byte(nil), now...)
	} else {
		prevNext = append([]byte(nil), before...)
	}
	for i, r := range rows {
		at := 8 * int(r)
		copy(prevNext[at:at+8], now[at:at+8])
		copy(next[at:at+8], vals[8*i:8*i+8])
	}
	return next, prevNext
}

// ChangedNumbers is the rows at which next's numbers differ from now's.
func ChangedNumbers(now, next []byte) []int32 {
	var changed []int32
	for i := 0; i+8 <= len(next) && i+8 <= len(now); i += 8 {
		if binary.LittleEndian.Uint64(next[i:]) != binary.LittleEndian.Uint64(now[i:]) {
			changed = append(changed, int32(i/8))
		}
	}
	return changed
}

// gatherLanes is the 8-byte lanes of b at rows.
func gatherLanes(b []byte, rows []int32) []byte {
	out := make([]byte, 8*len(rows))
	for i, r := range rows {
		copy(out[8*i:], b[8*int(r):8*int(r)+8])
	}
	return out
}
