package protocol

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestSealBodyStreams: a body sealed through the streaming compressor,
// small or larger than the compressor's window and its buffers, opens to
// the same values, and its frame keeps little memory beyond its bytes
// (frames are kept by the ring and a file's queue).
func TestSealBodyStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 100, 3 << 20} {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(rng.IntN(16)) // compressible, not trivially
		}
		body := &WorldBody{Summary: Summary{Tick: 7, Full: true}, Tables: []TableFrame{{
			Archetype: 1, Components: []uint16{3}, Len: n / 8, All: true,
			Columns: []ColumnFrame{{Kind: ColumnRaw, Size: 8, Raw: raw}},
		}}}
		f := &WorldFrame{Tick: 7, Full: true}
		if err := SealBody(f, body); err != nil {
			t.Fatal(err)
		}
		if slack := cap(f.Body) - len(f.Body); slack > len(f.Body)/8 {
			t.Fatalf("a body of %d bytes sealed into %d with %d bytes of slack", n, len(f.Body), slack)
		}
		got, err := OpenBody(f)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if got.Summary.Tick != 7 || len(got.Tables) != 1 || !bytes.Equal(got.Tables[0].Columns[0].Raw, raw) {
			t.Fatalf("%d bytes came back as %+v", n, got.Tables)
		}
	}
}

// TestSealBodySizedTakesTheGuess: given the size of the last body like
// it, a body is compressed into one buffer of that size, not grown and
// copied.
func TestSealBodySizedTakesTheGuess(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	raw := make([]byte, 1<<20)
	for i := range raw {
		raw[i] = byte(rng.IntN(64))
	}
	body := &WorldBody{Tables: []TableFrame{{Archetype: 1, Components: []uint16{3}, Len: len(raw) / 8, All: true,
		Columns: []ColumnFrame{{Kind: ColumnRaw, Size: 8, Raw: raw}}}}}
	first := &WorldFrame{}
	if err := SealBody(first, body); err != nil {
		t.Fatal(err)
	}
	guess := len(first.Body) + len(first.Body)/16
	again := &WorldFrame{}
	if err := SealBodySized(again, body, guess); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Body, first.Body) || cap(again.Body) != guess {
		t.Fatalf("sealed into %d bytes with room for %d, guessing %d (first %d bytes)", len(again.Body), cap(again.Body), guess, len(first.Body))
	}
}

// TestDecompressMakesTheBodyOnce: an S2 body is decompressed into memory
// made once at the size its chunks declare (a frame of predicted values
// decodes to several times its bytes: a buffer grown from a guess copied
// and cleared it again), with no more room than one read's.
func TestDecompressMakesTheBodyOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	raw := make([]byte, 3<<20)
	for i := range raw {
		if rng.IntN(4) == 0 { // mostly zeros, as planes of predicted values are
			raw[i] = byte(rng.IntN(16))
		}
	}
	body := &WorldBody{Tables: []TableFrame{{Columns: []ColumnFrame{{Raw: raw}}}}}
	f := &WorldFrame{}
	if err := SealBodySized(f, body, 0); err != nil {
		t.Fatal(err)
	}
	out, err := Decompress(f.Body, MaxWorldBody)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < len(raw) || cap(out) > len(out)+bytes.MinRead {
		t.Fatalf("%d bytes compressed to %d decompressed into %d bytes of room for %d", len(raw), len(f.Body), cap(out), len(out))
	}
}
