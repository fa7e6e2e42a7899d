package protocol

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/s2"
)

// TestBodiesOfEitherCodec: the agent seals a small body with zstd and a
// large one with S2; a world frame's body opens whichever it was sealed
// with, to the same body; a body past the limit is refused either way.
func TestBodiesOfEitherCodec(t *testing.T) {
	large := &WorldBody{Tables: []TableFrame{{Columns: []ColumnFrame{{Raw: make([]byte, 2*zstdBodyMost)}}}}}
	lf := &WorldFrame{Tick: 7}
	if err := SealBody(lf, large); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(lf.Body, s2Magic) {
		t.Fatalf("a large body is not an S2 stream: % x", lf.Body[:8])
	}
	body := &WorldBody{Journal: []JournalEntry{{Seq: 1, Op: "spawn", Entity: MakeEntityID(3, 1), System: "hunt"}}}
	f := &WorldFrame{Tick: 7}
	if err := SealBody(f, body); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(f.Body, []byte("\x28\xb5\x2f\xfd")) {
		t.Fatalf("a small body is not a zstd frame: % x", f.Body[:8])
	}
	raw, err := Decompress(f.Body, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var s2Body bytes.Buffer // the same body as an S2 stream
	w := s2.NewWriter(&s2Body)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for name, fr := range map[string]*WorldFrame{"s2": {Tick: 7, Body: s2Body.Bytes()}, "zstd": f} {
		got, err := OpenBody(fr)
		if err != nil || len(got.Journal) != 1 || got.Journal[0].System != "hunt" {
			t.Errorf("%s body: %+v %v", name, got, err)
		}
		if _, err := Decompress(fr.Body, len(raw)-1); err == nil {
			t.Errorf("%s body over the limit was taken", name)
		}
	}
}
