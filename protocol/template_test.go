package protocol

import (
	"bytes"
	"math"
	"testing"
)

// TestTemplateAnswersEachRequestWithItsID: one encoding, sent for any
// request id, decodes as the message with that id and nothing else
// changed; a message that does not start with its id is refused.
func TestTemplateAnswersEachRequestWithItsID(t *testing.T) {
	snap := &Snapshot{ID: TemplateID, Tick: 42, Game: "g", Tables: []Table{{Components: []uint16{}, Entities: []EntityID{MakeEntityID(1, 1)}}}}
	tmpl, err := EncodeTemplate(snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint32{0, 1, 127, 128, 65_536, math.MaxUint32 - 1} {
		m, err := Decode(tmpl.For(id).Bytes)
		if err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		got, ok := m.(*Snapshot)
		if !ok || got.ID != id || got.Tick != 42 || got.Game != "g" || len(got.Tables) != 1 || got.Tables[0].Entities[0] != MakeEntityID(1, 1) {
			t.Fatalf("id %d decodes as %+v", id, m)
		}
		if b, _ := Encode(tmpl.For(id)); !bytes.Equal(b, tmpl.For(id).Bytes) {
			t.Fatal("Encode of an Encoded message is not its bytes")
		}
	}
	if a, b := tmpl.For(1), tmpl.For(2); &a.Bytes[0] == &b.Bytes[0] {
		t.Fatal("two answers share their bytes")
	}
	if _, err := EncodeTemplate(&Snapshot{ID: 5}); err == nil {
		t.Fatal("a template without TemplateID as its id was made")
	}
	if _, err := EncodeTemplate(&Summary{}); err == nil {
		t.Fatal("a template of a message without an id first was made")
	}
}
