package protocol

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCodingIntoReusedMemory: values coded into an arena's room (memory a
// frame before filled with other bytes) and with borrowed intermediates
// (left holding other values) come out byte for byte as coded into fresh
// memory, and decode to the values, predicted or XORed, entities too.
func TestCodingIntoReusedMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fill := func(k int) []byte { return randBytes(rng, k) }
	var arena Arena
	for frame := range 200 {
		arena.Reset()
		// Leave the arena's memory and the borrowed buffers dirty, as a
		// frame before leaves them.
		dirty := arena.Room(1 << 12)
		dirty = append(dirty, fill(1<<12)...)
		p := borrowScratch(1 << 12)
		copy(*p, fill(1<<12))
		returnScratch(p)
		arena.Reset()
		_ = dirty

		lane := []int{4, 8}[rng.IntN(2)]
		size := lane * (1 + rng.IntN(3))
		n := rng.IntN(60)
		vals, base, prev := fill(n*size), fill(rng.IntN(n+1)*size), fill(rng.IntN(n+1)*size)

		predicted := AppendPredicted(arena.Room(len(vals)), vals, base, prev, size, lane)
		if want := AppendPredicted(nil, vals, base, prev, size, lane); !bytes.Equal(predicted, want) {
			t.Fatalf("frame %d: predicted into reused memory differs from fresh", frame)
		}
		out := make([]byte, len(vals))
		UndoPredicted(out, predicted, base, prev, size, lane)
		if !bytes.Equal(out, vals) {
			t.Fatalf("frame %d: predicted values do not decode to the values", frame)
		}

		xored := AppendPlanes(arena.Room(len(vals)), vals, base, size)
		if want := AppendPlanes(nil, vals, base, size); !bytes.Equal(xored, want) {
			t.Fatalf("frame %d: XORed into reused memory differs from fresh", frame)
		}

		ents, old := make([]EntityID, n), make([]EntityID, rng.IntN(n+1))
		for i := range ents {
			ents[i] = EntityID(rng.Uint64())
		}
		for i := range old {
			old[i] = EntityID(rng.Uint64())
		}
		coded := AppendEntityPlanes(arena.Room(8*len(ents)), ents, old)
		if want := AppendPlanes(nil, EntityBytes(ents), EntityBytes(old), 8); !bytes.Equal(coded, want) {
			t.Fatalf("frame %d: entities coded into reused memory differ from fresh", frame)
		}
		plain := make([]byte, len(coded))
		UndoPlanes(plain, coded, EntityBytes(old), 8)
		if got := BytesEntities(plain); !slices.Equal(got, ents) {
			t.Fatalf("frame %d: entities decode to %v, want %v", frame, got, ents)
		}
	}
}

// TestArenaRoomIsItsOwn: each slice the arena hands out in a frame is
// empty with room for the bytes asked, and filling one leaves the others
// as they were, across the arena's growth.
func TestArenaRoomIsItsOwn(t *testing.T) {
	var a Arena
	var got [][]byte
	for i := range 50 {
		r := a.Room(100 + i)
		if len(r) != 0 || cap(r) != 100+i {
			t.Fatalf("room %d: len %d cap %d, want 0 and %d", i, len(r), cap(r), 100+i)
		}
		got = append(got, append(r, bytes.Repeat([]byte{byte(i)}, 100+i)...))
	}
	for i, g := range got {
		if !bytes.Equal(g, bytes.Repeat([]byte{byte(i)}, 100+i)) {
			t.Fatalf("room %d was written over by another", i)
		}
	}
}
