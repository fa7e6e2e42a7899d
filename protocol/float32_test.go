package protocol

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// TestFloat32ValuesStayFloat32: a float32 field's value, read from the
// wire or from a world frame's memory, prints as the float32 it is
// (797.30426, not the widened 797.3042602539062), is written back as a
// msgpack float32 and as the same decimal in JSON; a float64 keeps every
// digit.
func TestFloat32ValuesStayFloat32(t *testing.T) {
	f := float32(797.30426)
	wire := binary.BigEndian.AppendUint32([]byte{0xca}, math.Float32bits(f))
	var v Value
	if err := msgpack.Unmarshal(wire, &v); err != nil {
		t.Fatal(err)
	}
	mem := binary.LittleEndian.AppendUint32(nil, math.Float32bits(f))
	raw := RawField(&FieldSchema{Kind: "float", Size: 4}, mem, 0, 0)
	for name, v := range map[string]Value{"wire": v, "memory": raw} {
		if !v.IsFloat32() || v.String() != "797.30426" || v.Float() != float64(f) {
			t.Errorf("%s: %v (float32 %v, %v), want 797.30426", name, v, v.IsFloat32(), v.Float())
		}
		again, err := msgpack.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, wire) {
			t.Errorf("%s: encoded as % x, want % x", name, again, wire)
		}
		j, err := json.Marshal(MapValue(Field{Name: "X", Value: v}))
		if err != nil {
			t.Fatal(err)
		}
		if string(j) != `{"X":797.30426}` {
			t.Errorf("%s: JSON %s", name, j)
		}
	}
	wide := FloatValue(float64(f))
	if wide.IsFloat32() || wide.String() != "797.3042602539062" || !wide.Equal(v) {
		t.Errorf("a float64 of the same bits: %v (float32 %v, equal %v)", wide, wide.IsFloat32(), wide.Equal(v))
	}
}
