package protocol

import (
	"reflect"
	"testing"
)

// FuzzJournalEntryCodec: a journal entry written by its hand-made encoder
// reads back as it was, whatever its fields.
func FuzzJournalEntryCodec(f *testing.F) {
	f.Add(uint64(1), uint64(2), "spawn", uint64(1<<32|5), -1, "movement", []byte{1, 2}, uint64(3))
	f.Add(uint64(0), uint64(0), "", uint64(0), 300, "", []byte(nil), uint64(0))
	f.Fuzz(func(t *testing.T, seq, frame uint64, op string, entity uint64, comp int, system string, comps []byte, to uint64) {
		e := JournalEntry{Seq: seq, Frame: frame, Op: op, Entity: EntityID(entity), Component: comp, System: system, To: to}
		for _, c := range comps {
			e.Components = append(e.Components, int(c)-128)
		}
		b, err := Encode(&Journal{Sub: 7, Tick: 9, Entries: []JournalEntry{e, e}})
		if err != nil {
			return // a string that is not UTF-8: refused, not written wrong
		}
		m, err := Decode(b)
		if err != nil {
			t.Fatalf("%+v did not read back: %v", e, err)
		}
		got := m.(*Journal)
		if len(got.Entries) != 2 || !reflect.DeepEqual(got.Entries[1], e) || got.Sub != 7 || got.Tick != 9 {
			t.Fatalf("wrote %+v, read %+v", e, got)
		}
	})
}
