package ecs

import (
	"fmt"
	"unsafe"
)

// Raw bounds: comparisons of a number at a fixed place in a component's
// memory with a constant, tested by the kernel on each row written, with no
// call per row: what a watchpoint on a field costs per written row.

// NumKind is how a number is stored in a value's memory.
type NumKind uint8

// The number kinds a RawBound reads.
const (
	Float32 NumKind = iota + 1
	Float64
	Int32
	Int64
	Uint32
	Uint64
)

// size is the bytes of a number of the kind.
func (k NumKind) size() int {
	switch k {
	case Float32, Int32, Uint32:
		return 4
	case Float64, Int64, Uint64:
		return 8
	}
	return 0
}

// CmpOp is a RawBound's comparison.
type CmpOp uint8

// The comparisons.
const (
	Less CmpOp = iota + 1
	LessEqual
	Greater
	GreaterEqual
	Equal
	NotEqual
)

// RawBound compares the number of kind Kind at byte Offset of a value with
// Value: the value passes when "number Op Value" holds.
type RawBound struct {
	Offset int
	Kind   NumKind
	Op     CmpOp
	Value  float64
}

// holds tests the value at p: the one row of a scan.
func (b *RawBound) holds(p unsafe.Pointer) bool {
	row := [1]int32{0}
	return len(b.keep(p, 0, row[:])) == 1
}

// keep keeps the rows of in (offsets in strides from p, the first value)
// whose number passes the bound; it reuses in's memory.
func (b *RawBound) keep(p unsafe.Pointer, stride int, in []int32) []int32 {
	q := unsafe.Add(p, b.Offset)
	switch b.Kind {
	case Float32:
		return scanBound[float32](q, stride, b.Op, b.Value, in)
	case Float64:
		return scanBound[float64](q, stride, b.Op, b.Value, in)
	case Int32:
		return scanBound[int32](q, stride, b.Op, b.Value, in)
	case Int64:
		return scanBound[int64](q, stride, b.Op, b.Value, in)
	case Uint32:
		return scanBound[uint32](q, stride, b.Op, b.Value, in)
	case Uint64:
		return scanBound[uint64](q, stride, b.Op, b.Value, in)
	}
	return in[:0]
}

// inspectEachChangedWhere is [Inspection.EachChangedWhere].
func (w *World) inspectEachChangedWhere(id ComponentID, since, until uint32, bounds []RawBound, fn func(e Entity, raw []byte) bool) error {
	if int(id) >= len(w.reg.regs) || w.reg.regs[id].info.Type == nil || hasPointers(w.reg.regs[id].info.Type) {
		return fmt.Errorf("ecs: component %d has no plain memory to test", id)
	}
	size := int(w.reg.regs[id].info.Size)
	for _, b := range bounds {
		if n := b.Kind.size(); n == 0 || b.Offset < 0 || b.Offset+n > size || b.Op < Less || b.Op > NotEqual || b.Offset%n != 0 {
			return fmt.Errorf("ecs: a bound at byte %d (kind %d, op %d) does not fit %s", b.Offset, b.Kind, b.Op, w.reg.regs[id].info.Short)
		}
	}
	pass := func(p unsafe.Pointer) bool {
		for i := range bounds {
			if !bounds[i].holds(p) {
				return false
			}
		}
		return true
	}
	if s := w.sparse[id]; s != nil {
		s.eachChanged(since, until, func(e Entity, raw []byte) bool {
			return len(raw) == 0 || !pass(unsafe.Pointer(&raw[0])) || fn(e, raw)
		})
		return nil
	}
	w.eachChangedPassing(id, since, until, &boundScanner{bounds: bounds, size: size, hits: make([]int32, 0, chunkRows)}, pass, fn)
	return nil
}
