package ecs

import (
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// scanRow is a row of mixed number kinds, as a component of them would be.
type scanRow struct {
	F32 float32
	I32 int32
	F64 float64
	I64 int64
	U32 uint32
	_   uint32
	U64 uint64
}

// TestScannedBoundsAgreeWithRowByRow: the loop that tests a run of rows
// per kind and operator (scanBound) passes exactly the rows the row-by-row
// test (RawBound.holds, what single written rows go through) passes, for
// every kind, operator and a mix of bounds.
func TestScannedBoundsAgreeWithRowByRow(t *testing.T) {
	offsets := map[NumKind]int{
		Float32: int(unsafe.Offsetof(scanRow{}.F32)), Int32: int(unsafe.Offsetof(scanRow{}.I32)),
		Float64: int(unsafe.Offsetof(scanRow{}.F64)), Int64: int(unsafe.Offsetof(scanRow{}.I64)),
		Uint32: int(unsafe.Offsetof(scanRow{}.U32)), Uint64: int(unsafe.Offsetof(scanRow{}.U64)),
	}
	rapid.Check(t, func(rt *rapid.T) {
		vals := []float64{-2, -0.5, 0, 0.1, 1, 3, 1e10}
		rows := make([]scanRow, rapid.IntRange(1, 130).Draw(rt, "rows"))
		for i := range rows {
			v := func() float64 { return rapid.SampledFrom(vals).Draw(rt, "v") }
			rows[i] = scanRow{F32: float32(v()), I32: int32(v()), F64: v(), I64: int64(v()), U32: uint32(max(v(), 0)), U64: uint64(max(v(), 0))}
		}
		var bounds []RawBound
		for range rapid.IntRange(1, 3).Draw(rt, "bounds") {
			kind := NumKind(rapid.IntRange(int(Float32), int(Uint64)).Draw(rt, "kind"))
			bounds = append(bounds, RawBound{Offset: offsets[kind], Kind: kind, Op: CmpOp(rapid.IntRange(int(Less), int(NotEqual)).Draw(rt, "op")), Value: rapid.SampledFrom(vals).Draw(rt, "value")})
		}
		s := &boundScanner{bounds: bounds, size: int(unsafe.Sizeof(scanRow{}))}
		got := s.scan(unsafe.Pointer(&rows[0]), len(rows))
		var want []int32
		for i := range rows {
			pass := true
			for j := range bounds {
				pass = pass && bounds[j].holds(unsafe.Pointer(&rows[i]))
			}
			if pass {
				want = append(want, int32(i))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%+v: the scan passes %v, row by row %v", bounds, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%+v: the scan passes %v, row by row %v", bounds, got, want)
			}
		}
	})
}
