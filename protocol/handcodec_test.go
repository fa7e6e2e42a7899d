package protocol

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// plainPage has Page's fields and tags but none of its hand-written codec:
// what the generic encoder makes of the tags.
type plainPage struct {
	Sub     uint32     `msgpack:"sub"`
	Tick    uint64     `msgpack:"t"`
	Full    bool       `msgpack:"full,omitempty"`
	Total   int        `msgpack:"tot"`
	Offset  int        `msgpack:"o"`
	Columns []uint16   `msgpack:"cols"`
	Rows    []Row      `msgpack:"rows,omitempty"`
	Removed []EntityID `msgpack:"rm,omitempty"`
	Order   []EntityID `msgpack:"ord,omitempty"`
}

// TestHandPageCodecMatchesTags encodes random pages by hand and through
// the generic encoder of a struct with Page's tags: the bytes must be the
// same, and the hand decoder must read back every field. A field added to
// Page and forgotten by the hand codec fails here (plainPage must be kept
// in step: the reflect check below says so).
func TestHandPageCodecMatchesTags(t *testing.T) {
	if a, b := fieldsOf(Page{}), fieldsOf(plainPage{}); a != b {
		t.Fatalf("plainPage is out of step with Page:\n%s\n%s", a, b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ents := func() []EntityID {
		if rng.IntN(3) == 0 {
			return nil
		}
		out := make([]EntityID, 1+rng.IntN(4))
		for i := range out {
			out[i] = MakeEntityID(rng.Uint32(), rng.Uint32()%5)
		}
		return out
	}
	for range 500 {
		p := Page{Sub: rng.Uint32(), Tick: rng.Uint64() >> rng.IntN(64), Full: rng.IntN(2) == 0, Total: rng.IntN(1 << 20), Offset: rng.IntN(100),
			Columns: []uint16{uint16(rng.IntN(300))}, Removed: ents(), Order: ents()}
		for range rng.IntN(3) {
			p.Rows = append(p.Rows, Row{Entity: MakeEntityID(rng.Uint32(), 1), Values: []Value{FloatValue(rng.Float64())}})
		}
		hand, err := Encode(&p)
		if err != nil {
			t.Fatal(err)
		}
		plain := plainPage(p)
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.UseCompactInts(true)
		if err := enc.EncodeArrayLen(2); err != nil {
			t.Fatal(err)
		}
		if err := enc.EncodeUint(uint64(TypePage)); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(&plain); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(hand, buf.Bytes()) {
			t.Fatalf("hand encoder differs from the tags:\n hand %x\ntags %x", hand, buf.Bytes())
		}
		m, err := Decode(hand)
		if err != nil {
			t.Fatal(err)
		}
		if !sameMessage(m, &p) {
			t.Fatalf("hand decoder lost something:\n got %+v\nwant %+v", m, &p)
		}
	}
}

func fieldsOf(v any) string {
	var b bytes.Buffer
	rt := reflectType(v)
	for i := range rt.NumField() {
		f := rt.Field(i)
		b.WriteString(f.Name + " " + f.Type.String() + " " + string(f.Tag) + "\n")
	}
	return b.String()
}

func reflectType(v any) reflect.Type { return reflect.TypeOf(v) }
