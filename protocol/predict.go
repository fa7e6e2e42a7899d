package protocol

import (
	"encoding/binary"
	"unsafe"
)

// Predicted coding of raw values (a ColumnFrame's Lane). Each value is
// read as lanes of Lane bytes (little-endian integers: 4 for float32 and
// 32-bit fields, 8 for 64-bit ones) and coded as its difference from a
// prediction made from what the reader holds: the last value plus the
// last difference, 2*base - prev. A position moving at its velocity, a
// counter counting and, since a float's bits grow about as its logarithm,
// a value decaying at a rate are each predicted to the bit or near it. The
// difference is zigzagged (small either way is a small number), and the
// lanes laid out in byte planes as XOR coding lays out values, so the
// block coder finds planes of zeros. Where the reader holds no value
// before the base, the prediction is the base; where it holds no base,
// zero.

// PredictLane is the lane a value of size bytes whose leaves are fields
// is predicted in: 8 when every leaf takes 8 bytes, else 4 when the size
// is a multiple of 4, else 0 (not predicted: XOR coded).
func PredictLane(size int, fields []FieldSchema) int {
	switch {
	case size <= 0:
		return 0
	case size%8 == 0 && len(fields) > 0 && leavesOf(fields, 8):
		return 8
	case size%4 == 0:
		return 4
	}
	return 0
}

// leavesOf reports whether every leaf of fields takes width bytes.
func leavesOf(fields []FieldSchema, width int) bool {
	for _, f := range fields {
		switch {
		case len(f.Fields) > 0:
			if !leavesOf(f.Fields, width) {
				return false
			}
		case f.Kind == "array" && f.Elem != nil && f.Len > 0:
			if !leavesOf([]FieldSchema{*f.Elem}, width) {
				return false
			}
		case f.Size != width:
			return false
		}
	}
	return true
}

// AppendPredicted appends vals (values of size bytes each) coded against
// their prediction from base and prev (the reader's last values at the
// same indexes and the ones before them; either may be short or nil), in
// lanes of lane bytes (4 or 8, dividing size), in byte planes.
func AppendPredicted(dst, vals, base, prev []byte, size, lane int) []byte {
	return appendCoded(dst, vals, base, prev, size, lane, func(dst, x []byte) []byte { return appendPlaned(dst, x, size) })
}

// appendCoded appends vals coded against their prediction (predict), the
// coded lanes laid out by layout.
func appendCoded(dst, vals, base, prev []byte, size, lane int, layout func(dst, x []byte) []byte) []byte {
	n := len(vals) / size * size
	p := borrowScratch(n)
	defer returnScratch(p)
	x := *p
	predict(x, vals[:n], base, prev, lane)
	return layout(dst, x)
}

// predict writes into x each lane of vals as the zigzag of its
// difference from its prediction (2*base - prev; base alone where prev
// is short; zero where base is).
func predict(x, vals, base, prev []byte, lane int) {
	both, only := predictedSpans(len(vals), len(base), len(prev), lane)
	if lane == 8 {
		predictLanes[uint64](x, vals, base, prev, both, only)
	} else {
		predictLanes[uint32](x, vals, base, prev, both, only)
	}
}

// laneWord is the unsigned integer a lane is read as.
type laneWord interface{ ~uint32 | ~uint64 }

// predictLanes is predict for lanes of T.
func predictLanes[T laneWord](x, vals, base, prev []byte, both, only int) {
	w := laneWidth[T]()
	i := 0
	for ; i < both; i += w {
		storeLane(x[i:], zigzag(loadLane[T](vals[i:])-(2*loadLane[T](base[i:])-loadLane[T](prev[i:]))))
	}
	for ; i < only; i += w {
		storeLane(x[i:], zigzag(loadLane[T](vals[i:])-loadLane[T](base[i:])))
	}
	for ; i+w <= len(vals); i += w {
		storeLane(x[i:], zigzag(loadLane[T](vals[i:])))
	}
}

// unpredictLanes is unpredict for lanes of T.
func unpredictLanes[T laneWord](x, base, prev []byte, both, only int) {
	w := laneWidth[T]()
	i := 0
	for ; i < both; i += w {
		storeLane(x[i:], unzigzag(loadLane[T](x[i:]))+(2*loadLane[T](base[i:])-loadLane[T](prev[i:])))
	}
	for ; i < only; i += w {
		storeLane(x[i:], unzigzag(loadLane[T](x[i:]))+loadLane[T](base[i:]))
	}
	for ; i+w <= len(x); i += w {
		storeLane(x[i:], unzigzag(loadLane[T](x[i:])))
	}
}

// laneWidth is a lane's bytes.
func laneWidth[T laneWord]() int { var z T; return int(unsafe.Sizeof(z)) }

// loadLane reads a lane, little-endian, from b's start.
func loadLane[T laneWord](b []byte) T {
	if laneWidth[T]() == 8 {
		return T(binary.LittleEndian.Uint64(b))
	}
	return T(binary.LittleEndian.Uint32(b))
}

// storeLane writes v at b's start, little-endian.
func storeLane[T laneWord](b []byte, v T) {
	if laneWidth[T]() == 8 {
		binary.LittleEndian.PutUint64(b, uint64(v))
	} else {
		binary.LittleEndian.PutUint32(b, uint32(v))
	}
}

// zigzag maps a difference to a small number either way: 0, -1, 1, -2
// to 0, 1, 2, 3 (wrapping arithmetic; the sign is the top bit).
func zigzag[T laneWord](r T) T { return r<<1 ^ -(r >> (8*laneWidth[T]() - 1)) }

// unzigzag undoes zigzag.
func unzigzag[T laneWord](z T) T { return z>>1 ^ -(z & 1) }

// predictedSpans splits n bytes of values: up to both, base and prev hold
// the lane (the prediction is 2*base - prev); up to only, base alone (the
// base); past it, neither (zero).
func predictedSpans(n, base, prev, lane int) (both, only int) {
	only = min(n, base) / lane * lane
	both = min(only, prev/lane*lane)
	return both, only
}

// UndoPredicted turns coded (n values of size bytes in byte planes, coded
// against their prediction as AppendPredicted did) back into values,
// written into out.
func UndoPredicted(out, coded, base, prev []byte, size, lane int) {
	n := len(coded) / size * size
	out = out[:n]
	unplane(out, coded, size)
	unpredict(out, base, prev, lane)
}

// unpredict turns x's lanes (coded as predict codes them) back into
// values, in place.
func unpredict(x, base, prev []byte, lane int) {
	both, only := predictedSpans(len(x), len(base), len(prev), lane)
	if lane == 8 {
		unpredictLanes[uint64](x, base, prev, both, only)
	} else {
		unpredictLanes[uint32](x, base, prev, both, only)
	}
}
