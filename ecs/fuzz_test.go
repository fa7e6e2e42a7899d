package ecs

import "testing"

// FuzzParseEntity: any string either parses to a handle that prints back to
// the same text in canonical form, or is rejected; never a panic.
func FuzzParseEntity(f *testing.F) {
	for _, s := range []string{"42v3", "0v1", "4294967295v4294967295", "", "v", "1v", "01v02", "-1v2", "1v2v3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEntity(s)
		if err != nil {
			return
		}
		back, err := ParseEntity(e.String())
		if err != nil || back != e {
			t.Fatalf("%q parsed to %v, which reads back as %v, %v", s, e, back, err)
		}
	})
}

// fuzzBody is a component with every kind of field a path can reach.
type fuzzBody struct {
	Pos    struct{ X, Y float32 }
	Slots  [3]int16
	Tags   []uint8
	Name   string
	Target Entity
	On     bool
}

// FuzzSetFieldPath: any path and any value either set one field (and
// nothing else) or are refused with the component unchanged; never a panic.
func FuzzSetFieldPath(f *testing.F) {
	for _, c := range [][2]string{{"fuzzBody.Pos.X", "1.5"}, {"fuzzBody.Slots[2]", "7"}, {"fuzzBody.Tags[0]", "3"}, {"fuzzBody.Name", "orc"},
		{"fuzzBody.Target", "0v1"}, {"fuzzBody.On", "true"}, {"fuzzBody.Slots[9]", "1"}, {"fuzzBody..X", "1"}, {"fuzzBody.Pos", "{}"}, {"fuzzBody.Pos.X", "NaN"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, path, value string) {
		w := NewWorld()
		m := NewMap[fuzzBody](w)
		e := w.Spawn()
		if err := m.Add(e, fuzzBody{Tags: []uint8{1, 2}, Name: "x"}); err != nil {
			t.Fatal(err)
		}
		before := *m.Read(e)
		err := w.Inspect().SetField(e, path, value)
		after := *m.Read(e)
		if err != nil && !sameBody(before, after) {
			t.Fatalf("SetField(%q, %q) failed (%v) but changed the component: %+v -> %+v", path, value, err, before, after)
		}
	})
}

func sameBody(a, b fuzzBody) bool {
	if a.Pos != b.Pos || a.Slots != b.Slots || a.Name != b.Name || a.Target != b.Target || a.On != b.On || len(a.Tags) != len(b.Tags) {
		return false
	}
	for i := range a.Tags {
		if a.Tags[i] != b.Tags[i] {
			return false
		}
	}
	return true
}
