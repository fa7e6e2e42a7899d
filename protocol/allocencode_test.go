package protocol

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
	"pgregory.net/rapid"
)

// TestAllocFrameEncodesAsItsStruct: the hand-written encoder writes the
// same bytes msgpack's struct encoder writes for the same frame with
// compact integers (as world bodies are encoded), so readers (and
// PROTOCOL.md) see no difference; the hand-written decoder reads both
// encoders' bytes, compact or not, back to the same frame.
func TestAllocFrameEncodesAsItsStruct(t *testing.T) {
	type plain AllocFrame // the same fields without the method
	rapid.Check(t, func(t *rapid.T) {
		a := AllocFrame{
			Slots: rapid.IntRange(0, 1<<30).Draw(t, "slots"),
			Keep:  rapid.IntRange(-3, 1<<20).Draw(t, "keep"),
		}
		if rapid.Bool().Draw(t, "gens") {
			a.Gens = rapid.SliceOf(rapid.Uint32()).Draw(t, "g")
		}
		for _, e := range rapid.SliceOf(rapid.Uint64()).Draw(t, "free") {
			a.Free = append(a.Free, EntityID(e))
		}
		if len(a.Gens) == 0 {
			a.Gens = nil // an empty list is left out, as omitempty does
		}
		encode := func(v any, compact bool) []byte {
			var buf bytes.Buffer
			enc := msgpack.NewEncoder(&buf)
			enc.UseCompactInts(compact)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}
		got, want := encode(&a, true), encode((*plain)(&a), true)
		if !bytes.Equal(got, want) {
			t.Fatalf("hand-written % x\nstruct encoder % x", got, want)
		}
		for _, raw := range [][]byte{got, encode((*plain)(&a), false)} {
			var back AllocFrame
			if err := msgpack.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, a) {
				t.Fatalf("decoded %+v from % x, want %+v", back, raw, a)
			}
		}
	})
}
