package protocol

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestPredictedRoundTrip: whatever the values, the base and the values
// before it (each possibly short or missing), predicted coding undoes to
// the values, in lanes of 4 and 8, laid out in byte planes or packed by
// length (values near their prediction as well as far from it, so every
// packed length is met), appended after what dst held.
func TestPredictedRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		lane := []int{4, 8}[rng.IntN(2)]
		size := lane * (1 + rng.IntN(3))
		n := rng.IntN(40)
		base := randBytes(rng, rng.IntN(n+1)*size)
		var prev []byte
		if rng.IntN(3) > 0 {
			prev = randBytes(rng, rng.IntN(n+1)*size)
		}
		vals := nearBase(rng, n*size, base, lane)
		dst := randBytes(rng, rng.IntN(5))
		packed := rng.IntN(2) == 0
		var coded []byte
		if packed {
			coded = AppendPacked(bytes.Clone(dst), vals, base, prev, size, lane)
		} else {
			coded = AppendPredicted(bytes.Clone(dst), vals, base, prev, size, lane)
		}
		if !bytes.Equal(coded[:len(dst)], dst) {
			t.Fatal("coding changed what dst held")
		}
		out := randBytes(rng, len(vals)) // dirty: every byte must be written
		if packed {
			if err := UndoPacked(out, coded[len(dst):], base, prev, lane); err != nil {
				t.Fatalf("lane %d, size %d, %d values: %v", lane, size, n, err)
			}
		} else if UndoPredicted(out, coded[len(dst):], base, prev, size, lane); len(coded)-len(dst) != len(vals) {
			t.Fatalf("%d bytes in planes from %d", len(coded)-len(dst), len(vals))
		}
		if !bytes.Equal(out, vals) {
			t.Fatalf("packed %v, lane %d, size %d, %d values, base %d and prev %d bytes: round trip differs", packed, lane, size, n, len(base), len(prev))
		}
	}
}

// randBytes is k random bytes.
func randBytes(rng *rand.Rand, k int) []byte {
	b := make([]byte, k)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestPredictionCodesSteadyChangeAsZeros: a counter counting, a position
// moving at a steady step and a value decaying at a rate (each float's
// bits about its logarithm) code as zeros, or bytes near it, where XOR
// with the last value leaves changing bytes.
func TestPredictionCodesSteadyChangeAsZeros(t *testing.T) {
	const n = 64
	at := func(frame int) []byte {
		b := make([]byte, 0, n*8)
		for i := range n {
			b = binary.LittleEndian.AppendUint32(b, uint32(1000*i+frame))  // a counter
			b = binary.LittleEndian.AppendUint32(b, uint32(i<<20+3*frame)) // a steady step
		}
		return b
	}
	coded := AppendPredicted(nil, at(7), at(6), at(5), 8, 4)
	if !bytes.Equal(coded, make([]byte, len(coded))) {
		t.Fatalf("counters and steady steps did not code as zeros: %x", coded[:32])
	}
	if xor := AppendPlanes(nil, at(7), at(6), 8); bytes.Equal(xor, make([]byte, len(xor))) {
		t.Fatal("the XOR coding of changing values is all zeros: the test proves nothing")
	}
}

// TestPredictLane: 8-byte lanes where every field takes 8 bytes, 4 where
// the size allows, none otherwise.
func TestPredictLane(t *testing.T) {
	f64 := FieldSchema{Kind: "float", Size: 8}
	f32 := FieldSchema{Kind: "float", Size: 4}
	b1 := FieldSchema{Kind: "bool", Size: 1}
	for _, c := range []struct {
		size   int
		fields []FieldSchema
		want   int
	}{
		{16, []FieldSchema{f64, f64}, 8},
		{8, []FieldSchema{f32, f32}, 4},
		{16, []FieldSchema{f64, f32, f32}, 4},
		{16, []FieldSchema{{Kind: "struct", Size: 16, Fields: []FieldSchema{f64, f64}}}, 8},
		{24, []FieldSchema{{Kind: "array", Len: 3, Size: 24, Elem: &f64}}, 8},
		{3, []FieldSchema{b1, b1, b1}, 0},
		{0, nil, 0},
		{8, nil, 4},
	} {
		if got := PredictLane(c.size, c.fields); got != c.want {
			t.Errorf("size %d, fields %+v: lane %d, want %d", c.size, c.fields, got, c.want)
		}
	}
}
