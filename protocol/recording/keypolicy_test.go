package recording

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestKeyframesComeByWhatASeekDecodes: deltas whose every value the
// prediction gets (packed to their length codes, a few bytes compressed)
// still ask for a keyframe once the values a seek would decode since the
// last one reach KeyframeRawRatio keyframes' worth: packing shrinks what
// is read, not what is decoded.
func TestKeyframesComeByWhatASeekDecodes(t *testing.T) {
	const n = 400_000 // 3.2 MB of values a frame
	raw := make([]byte, 0, 8*n)
	ents := make([]protocol.EntityID, n)
	rows := make([]int32, n)
	for i := range n {
		raw = append(raw, posBytes(float32(i), 1)...)
		ents[i], rows[i] = protocol.MakeEntityID(uint32(i+1), 1), int32(i)
	}
	input := func(tick uint64, full bool) *WorldInput {
		tc := TableChange{Archetype: 1, Components: []uint16{1}, Len: n, All: true,
			Columns: []ColumnChange{{Kind: protocol.ColumnRaw, Size: 8, Changed: rows, Raw: raw}}}
		if full {
			tc.Entities = ents
		}
		return &WorldInput{Tick: tick, Full: full, Summary: &protocol.Summary{Full: true, Components: worldSchemas()}, Tables: []TableChange{tc}}
	}
	e := NewWorldEncoder()
	e.TakeKeyframe() // as a capture does: the keyframe a new encoder wants
	key, err := e.Encode(input(1, true))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for tick := uint64(2); tick < 40 && asked == 0; tick++ {
		f, err := e.Encode(input(tick, false))
		if err != nil {
			t.Fatal(err)
		}
		if f.Full || len(f.Body) > len(key.Body)/20 {
			t.Fatalf("tick %d: a delta of unchanged values takes %d bytes (the keyframe %d)", tick, len(f.Body), len(key.Body))
		}
		if e.WantKeyframe() {
			asked = int(tick - 1)
		}
	}
	// The keyframe decodes its values and handles (6.4 MB): six of those
	// are 12 deltas of 3.2 MB.
	if asked < 10 || asked > 14 {
		t.Fatalf("a keyframe asked for after %d deltas, want about %d (what a seek decodes)", asked, KeyframeRawRatio*2)
	}
}
