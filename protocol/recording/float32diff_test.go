package recording

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestDiffKeepsFloat32Fields: a diff of a float32 field prints both sides
// as float32s.
func TestDiffKeepsFloat32Fields(t *testing.T) {
	v := protocol.Float32Value(797.30426)
	d := fieldChanges("", protocol.MapValue(protocol.Field{Name: "X", Value: v}), protocol.MapValue(protocol.Field{Name: "X", Value: protocol.Float32Value(763.00061)}), nil)
	if len(d) != 1 || d[0].Old.String()+" → "+d[0].New.String() != "797.30426 → 763.0006" {
		t.Errorf("a changed float32 field: %+v", d)
	}
}
