package ui

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestFieldAtFollowsNestedPaths(t *testing.T) {
	m := newModel(nil, "x")
	m.summary = &protocol.Summary{Components: []protocol.Component{{Short: "Body", Fields: []protocol.FieldSchema{
		{Name: "Pos", Kind: "struct", Fields: []protocol.FieldSchema{{Name: "X", Kind: "float"}}},
		{Name: "Slots", Kind: "array", Elem: &protocol.FieldSchema{Kind: "int"}},
	}}}}
	for path, want := range map[string]string{"Body.Pos.X": "float", "Body.Slots[2]": "int", "Body.Pos": "struct", "Body.Nope": "", "Other.X": ""} {
		got := ""
		if f := m.fieldAt(path); f != nil {
			got = f.Kind
		}
		if got != want {
			t.Errorf("fieldAt(%q) = %q, want %q", path, got, want)
		}
	}
}
