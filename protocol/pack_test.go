package protocol

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// nearBase is k bytes of lanes that are the base's plus a difference of
// 0 to lane bytes, so every packed length is met.
func nearBase(rng *rand.Rand, k int, base []byte, lane int) []byte {
	out := make([]byte, k)
	copy(out, base)
	for i := 0; i+lane <= k; i += lane {
		d := rng.Uint64() >> (8 * rng.IntN(9))
		if lane == 4 {
			binary.LittleEndian.PutUint32(out[i:], binary.LittleEndian.Uint32(out[i:])+uint32(d))
		} else {
			binary.LittleEndian.PutUint64(out[i:], binary.LittleEndian.Uint64(out[i:])+d)
		}
	}
	return out
}

// TestPackingDropsWhatThePredictionGotRight: values the prediction gets
// exactly cost their length code alone (2 bits in lanes of 4), values a
// few units off one byte more, where byte planes spend every byte.
func TestPackingDropsWhatThePredictionGotRight(t *testing.T) {
	const n = 64
	at := func(frame int) []byte {
		b := make([]byte, 0, n*8)
		for i := range n {
			b = binary.LittleEndian.AppendUint32(b, uint32(1000*i+frame))      // a counter: predicted exactly
			b = binary.LittleEndian.AppendUint32(b, uint32(i<<20+frame*frame)) // speeding up: 2 off
		}
		return b
	}
	coded := AppendPacked(nil, at(7), at(6), at(5), 8, 4)
	if want := 2*n/4 + n; len(coded) != want {
		t.Fatalf("%d bytes packed, want %d: the lengths and one byte a value off", len(coded), want)
	}
	if planed := AppendPredicted(nil, at(7), at(6), at(5), 8, 4); len(planed) != 8*n {
		t.Fatalf("byte planes take %d bytes, want %d", len(planed), 8*n)
	}
}

// TestUnpackRefusesWhatDoesNotFit: packed bytes too short, too long, with
// a lane longer than its lanes or lengths past the last lane are refused.
func TestUnpackRefusesWhatDoesNotFit(t *testing.T) {
	good := AppendPacked(nil, []byte{1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0}, nil, nil, 4, 4) // 3 lanes: 1, 0, 5
	if err := UndoPacked(make([]byte, 12), good, nil, nil, 4); err != nil {
		t.Fatalf("the good one: %v", err)
	}
	for name, c := range map[string]struct {
		coded []byte
		out   int
		lane  int
	}{
		"short":                 {good[:len(good)-1], 12, 4},
		"long":                  {append(bytes.Clone(good), 0), 12, 4},
		"no room for lengths":   {nil, 12, 4},
		"lengths past the last": {append([]byte{good[0] | 3<<6}, append(good[1:], 0, 0, 0, 0)...), 12, 4},
		"a 9-byte lane of 8":    {[]byte{9, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 8, 8},
		"lanes of 2":            {good, 12, 2},
	} {
		if err := UndoPacked(make([]byte, c.out), c.coded, nil, nil, c.lane); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzUndoPacked: any bytes, for any number of lanes of 4 or 8, are
// refused or unpacked without a panic; what unpacks packs back to the same
// values.
func FuzzUndoPacked(f *testing.F) {
	f.Add(AppendPacked(nil, []byte{1, 0, 0, 0, 0, 0, 1, 0}, nil, nil, 8, 4), 2, false)
	f.Add(AppendPacked(nil, []byte{1, 0, 0, 0, 0, 0, 1, 0}, nil, nil, 8, 8), 1, true)
	f.Fuzz(func(t *testing.T, coded []byte, lanes int, eight bool) {
		lane := 4
		if eight {
			lane = 8
		}
		if lanes < 0 || lanes > 1<<12 {
			return
		}
		out := make([]byte, lanes*lane)
		if err := UndoPacked(out, coded, nil, nil, lane); err != nil {
			return
		}
		again := make([]byte, len(out))
		if err := UndoPacked(again, AppendPacked(nil, out, nil, nil, lane, lane), nil, nil, lane); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("unpacked values do not pack back: %v", err)
		}
	})
}

// TestPackedAsDocumented: PROTOCOL.md's example, lanes 0, 300 and 5 in
// lanes of 4, packs as 18 2c 05 01.
func TestPackedAsDocumented(t *testing.T) {
	lanes := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 0), 300), 5)
	if got, want := appendPackedLanes(nil, lanes, 4), []byte{0x18, 0x2c, 0x05, 0x01}; !bytes.Equal(got, want) {
		t.Fatalf("packed as % x, the document says % x", got, want)
	}
}
