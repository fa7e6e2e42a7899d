package protocol

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/benchpair"
)

// steadyLanes is n values of Position-like float32 pairs over three frames
// (prev, base, now): most move at their velocity, a third stand still, a
// few turn, as the demo's animals do.
func steadyLanes(n int) (vals, base, prev []byte) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range n {
		for range 2 {
			x := uint32(0x42000000 + rng.IntN(1<<22))
			step := uint32(rng.IntN(900))
			switch rng.IntN(10) {
			case 0, 1, 2:
				step = 0
			case 3:
				step = uint32(rng.IntN(1 << 20))
			}
			prev = binary.LittleEndian.AppendUint32(prev, x)
			base = binary.LittleEndian.AppendUint32(base, x+step)
			vals = binary.LittleEndian.AppendUint32(vals, x+2*step+uint32(rng.IntN(3)))
		}
	}
	return vals, base, prev
}

// BenchmarkUndoPacked decodes 100,000 predicted values of 8 bytes (lanes
// of 4) packed by length, against the same values in byte planes
// (UndoPredicted, the baseline): what a seek spends a column's values on.
func BenchmarkUndoPacked(b *testing.B) {
	const n = 100_000
	vals, base, prev := steadyLanes(n)
	packed := AppendPacked(nil, vals, base, prev, 8, 4)
	planed := AppendPredicted(nil, vals, base, prev, 8, 4)
	out, out2 := make([]byte, len(vals)), make([]byte, len(vals))
	if err := UndoPacked(out, packed, base, prev, 4); err != nil || !bytes.Equal(out, vals) {
		b.Fatalf("packed does not undo: %v", err)
	}
	if UndoPredicted(out2, planed, base, prev, 8, 4); !bytes.Equal(out2, vals) {
		b.Fatal("planes do not undo")
	}
	benchpair.Run(b, n, "ns/value",
		func() { noErr(b, UndoPacked(out, packed, base, prev, 4)) },
		func() { UndoPredicted(out2, planed, base, prev, 8, 4) })
}

// BenchmarkAppendPacked codes the same values packed, against byte planes
// (AppendPredicted, the baseline): what the recorder spends on them.
func BenchmarkAppendPacked(b *testing.B) {
	const n = 100_000
	vals, base, prev := steadyLanes(n)
	dst, dst2 := make([]byte, 0, PackedMost(len(vals), 4)), make([]byte, 0, len(vals))
	benchpair.Run(b, n, "ns/value",
		func() { dst = AppendPacked(dst[:0], vals, base, prev, 8, 4) },
		func() { dst2 = AppendPredicted(dst2[:0], vals, base, prev, 8, 4) })
}

func noErr(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}
