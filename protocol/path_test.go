package protocol

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []PathStep
		err  string
	}{
		{"", nil, ""},
		{"HP", []PathStep{{Name: "HP"}}, ""},
		{"Pos.X", []PathStep{{Name: "Pos"}, {Name: "X"}}, ""},
		{"Grid[3][7]", []PathStep{{Name: "Grid"}, {Key: "3", Keyed: true}, {Key: "7", Keyed: true}}, ""},
		{"[3].Name", []PathStep{{Key: "3", Keyed: true}, {Name: "Name"}}, ""},
		{"ByName[wolf].Energy", []PathStep{{Name: "ByName"}, {Key: "wolf", Keyed: true}, {Name: "Energy"}}, ""},
		{`ByName["a]b"]`, []PathStep{{Name: "ByName"}, {Key: "a]b", Keyed: true}}, ""},
		{`M[""]`, []PathStep{{Name: "M"}, {Key: "", Keyed: true}}, ""},
		{"Grid[3", nil, "missing ]"},
		{"Grid[]", nil, "empty key"},
		{`M["a]`, nil, "does not end"},
		{`M["a"x]`, nil, "missing ]"},
		{"Pos..X", nil, "empty field name"},
		{".X", nil, "empty field name"},
		{"Pos.", nil, "empty field name"},
	} {
		got, err := ParsePath(tc.path)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one saying %q", tc.path, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.path, err)
		case tc.err == "" && !reflect.DeepEqual(got, tc.want):
			t.Errorf("%q parsed as %+v, want %+v", tc.path, got, tc.want)
		}
	}
}

// TestChildPathParsesBack: a child's path, whatever its key, parses back
// to the parent's steps and the key.
func TestChildPathParsesBack(t *testing.T) {
	for _, key := range []string{"3", "wolf", "a]b", `say "hi"`, "", "[", "x.y", "42v3"} {
		for _, keyed := range []bool{true, false} {
			if !keyed && (key == "" || strings.ContainsAny(key, `.[]"`)) {
				continue // a field name is an identifier
			}
			path := ChildPath("Top", key, keyed)
			steps, err := ParsePath(path)
			want := []PathStep{{Name: "Top"}, {Name: key}}
			if keyed {
				want[1] = PathStep{Key: key, Keyed: true}
			}
			if err != nil || !reflect.DeepEqual(steps, want) {
				t.Errorf("ChildPath(Top, %q, %v) = %q, parsed as %+v (%v)", key, keyed, path, steps, err)
			}
		}
	}
}

// TestValueAtFollowsPaths: Value.At reads fields, items and map entries
// by path; what is not there is not found.
func TestValueAtFollowsPaths(t *testing.T) {
	v := MapValue(
		Field{"Pos", MapValue(Field{"X", IntValue(3)})},
		Field{"Slots", ListValue(IntValue(7), IntValue(8))},
		Field{"ByName", MapValue(Field{"a]b", IntValue(9)})},
	)
	for path, want := range map[string]int64{"Pos.X": 3, "Slots[1]": 8, `ByName["a]b"]`: 9, "[Pos].X": 3} {
		if got, ok := v.At(path); !ok || got.Int() != want {
			t.Errorf("At(%q) = %v, %v; want %d", path, got, ok, want)
		}
	}
	for _, path := range []string{"Pos.Y", "Slots[2]", "Slots[-1]", "Slots[x]", "ByName[c]", "Pos.X.Z", "Slots["} {
		if got, ok := v.At(path); ok {
			t.Errorf("At(%q) found %v", path, got)
		}
	}
}

// FuzzParsePath: any text parses or is refused with an error, never a
// panic; what parses, written back step by step, parses the same.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"", "A.B[3]", `M["x]y"][2]`, "[0][1]", "A[", `M["`, "..", "A]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		steps, err := ParsePath(path)
		if err != nil {
			return
		}
		back := ""
		for _, st := range steps {
			if st.Keyed {
				back = ChildPath(back, st.Key, true)
			} else {
				back = ChildPath(back, st.Name, false)
			}
		}
		again, err := ParsePath(back)
		if err != nil || !reflect.DeepEqual(again, steps) {
			t.Fatalf("%q parsed as %+v; written back %q parses as %+v (%v)", path, steps, back, again, err)
		}
	})
}
