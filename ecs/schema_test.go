package ecs

import "testing"

type schemaInner struct {
	A int8
	B [3]float32
}

type schemaComp struct {
	Name    string
	Pos     Position
	Inner   schemaInner
	Tags    []string
	Scores  map[string]int
	Target  Entity
	Ptr     *int
	hidden  int // unexported: left out of the schema
	Enabled bool
}

var _ = schemaComp{}.hidden

func TestSchemaFromReflection(t *testing.T) {
	w := NewWorld()
	info := w.Inspect().Component(ComponentIDOf[schemaComp](w))
	if info.Short != "schemaComp" || info.Name != "github.com/ecsinspect/ecsinspect/ecs.schemaComp" || info.Storage != TableStorage {
		t.Errorf("info = %+v", info)
	}
	kinds := map[string]FieldKind{}
	for _, f := range info.Fields {
		kinds[f.Name] = f.Kind
	}
	want := map[string]FieldKind{"Name": KindString, "Pos": KindStruct, "Inner": KindStruct, "Tags": KindSlice,
		"Scores": KindMap, "Target": KindEntity, "Ptr": KindPointer, "Enabled": KindBool}
	if len(kinds) != len(want) {
		t.Errorf("fields = %v (unexported must be left out)", kinds)
	}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("%s kind = %v, want %v", k, kinds[k], v)
		}
	}
	inner := info.Fields[2]
	if len(inner.Fields) != 2 || inner.Fields[1].Kind != KindArray || inner.Fields[1].Len != 3 || inner.Fields[1].Elem.Kind != KindFloat {
		t.Errorf("nested = %+v", inner)
	}
	if m := info.Fields[4]; m.Key.Kind != KindString || m.Elem.Kind != KindInt {
		t.Errorf("map = %+v", m)
	}
	tag := w.Inspect().Component(ComponentIDOf[Frozen](w))
	if !tag.IsTag() || tag.Size != 0 {
		t.Error("Frozen is not a tag")
	}
}
