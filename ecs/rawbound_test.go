package ecs

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestEachChangedWhere: the kernel's bound loop finds the rows written
// whose field passes, and only those; a bound that does not fit is refused.
func TestEachChangedWhere(t *testing.T) {
	w := NewWorld()
	m := NewMap2[Position, Velocity](w)
	var ents []Entity
	for i := range 10 {
		ents = append(ents, m.Spawn(Position{X: float64(i)}, Velocity{}))
	}
	id := ComponentIDOf[Position](w)
	since := w.Inspect().NextStamp()
	for _, e := range ents[:6] { // written now: 0..5
		m.a.Get(e).Y = 1
	}
	var got []Entity
	err := w.Inspect().EachChangedWhere(id, since, 0, []RawBound{{Offset: 0, Kind: Float64, Op: GreaterEqual, Value: 3}}, func(e Entity, _ []byte) bool {
		got = append(got, e)
		return true
	})
	if err != nil || len(got) != 3 || got[0] != ents[3] || got[2] != ents[5] {
		t.Fatalf("rows written with X>=3: %v (%v), want 3v1-5v1", got, err)
	}
	if err := w.Inspect().EachChangedWhere(id, since, 0, []RawBound{{Offset: 12, Kind: Float64, Op: Less}}, func(Entity, []byte) bool { return true }); err == nil {
		t.Fatal("a bound past the value's end was taken")
	}
}

// TestEachChangedWhereMatchesRowByRow: over worlds written both ways
// (queries stamping whole chunks, single rows by Get) and bounds of every
// kind and comparison, the chunk scan finds exactly the rows, in the same
// order, that testing each written row with RawBound.holds finds.
func TestEachChangedWhereMatchesRowByRow(t *testing.T) {
	type Mixed = scanRow
	kinds := []struct {
		kind NumKind
		off  int
	}{{Float32, 0}, {Int32, 4}, {Float64, 8}, {Int64, 16}, {Uint32, 24}, {Uint64, 32}}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		w := NewWorld()
		m := NewMap[Mixed](w)
		n := 1 + rng.IntN(700)
		var ents []Entity
		for range n {
			e := w.Spawn()
			must(t, m.Add(e, Mixed{}))
			ents = append(ents, e)
		}
		since := w.Inspect().NextStamp()
		val := func() Mixed {
			x := rng.IntN(21) - 10
			return Mixed{F32: float32(x) / 2, I32: int32(x), F64: float64(x) / 4, I64: int64(x), U32: uint32(x + 10), U64: uint64(x + 10)}
		}
		if rng.IntN(2) == 0 { // a query writes every row: whole chunks stamped
			for v := range NewQuery1[Mixed](w, Mut[Mixed]()).All() {
				*v = val()
			}
		}
		for range rng.IntN(50) { // and rows one by one
			*m.Get(ents[rng.IntN(n)]) = val()
		}
		var bounds []RawBound
		for range 1 + rng.IntN(2) {
			k := kinds[rng.IntN(len(kinds))]
			v := float64(rng.IntN(11) - 5) // on values the rows hold, so == and the edges of < > are met
			if rng.IntN(2) == 0 {
				v /= 2
			}
			bounds = append(bounds, RawBound{Offset: k.off, Kind: k.kind, Op: CmpOp(1 + rng.IntN(6)), Value: v})
		}
		id := ComponentIDOf[Mixed](w)
		var want, got []Entity
		w.Inspect().EachChanged(id, since, 0, func(e Entity, raw []byte) bool {
			for i := range bounds {
				if !bounds[i].holds(unsafe.Pointer(&raw[0])) {
					return true
				}
			}
			want = append(want, e)
			return true
		})
		if err := w.Inspect().EachChangedWhere(id, since, 0, bounds, func(e Entity, _ []byte) bool { got = append(got, e); return true }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d, %d rows, bounds %+v: the scan found %d rows, row by row %d", round, n, bounds, len(got), len(want))
		}
	}
}
