package protocol

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestBodiesOfEitherCodec: a world frame's body opens whether it was
// sealed as S2 (this agent) or zstd (agents before it, files they wrote),
// to the same body; a body past the limit is refused either way.
func TestBodiesOfEitherCodec(t *testing.T) {
	body := &WorldBody{Journal: []JournalEntry{{Seq: 1, Op: "spawn", Entity: MakeEntityID(3, 1), System: "hunt"}}}
	f := &WorldFrame{Tick: 7}
	if err := SealBody(f, body); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(f.Body, s2Magic) {
		t.Fatalf("the agent's bodies are not S2 streams: % x", f.Body[:8])
	}
	raw, err := Decompress(f.Body, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	old := &WorldFrame{Tick: 7, Body: z.EncodeAll(raw, nil)}
	for name, fr := range map[string]*WorldFrame{"s2": f, "zstd": old} {
		got, err := OpenBody(fr)
		if err != nil || len(got.Journal) != 1 || got.Journal[0].System != "hunt" {
			t.Errorf("%s body: %+v %v", name, got, err)
		}
		if _, err := Decompress(fr.Body, len(raw)-1); err == nil {
			t.Errorf("%s body over the limit was taken", name)
		}
	}
}
