package printable

import (
	"strings"
	"testing"
)

// TestText: what a terminal acts on is escaped, the rest kept as it is.
func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"orc chief":                    "orc chief",
		"héllo wörld ✓":                "héllo wörld ✓",
		"\x1b]0;pwned\a":               `\x1b]0;pwned\a`,
		"\x1b[2J\x1b[Hall good":        `\x1b[2J\x1b[Hall good`,
		"line one\nFORGED: all good\r": `line one\nFORGED: all good\r`,
		"tab\there":                    `tab\there`,
		"csi \u009b31m":                `csi \u009b31m`,
		"del\x7f":                      `del\x7f`,
		"bad \xff utf8":                `bad \xff utf8`,
		"sep\u2028":                    `sep\u2028`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestClean: every string a message reaches is escaped in place: fields,
// pointers, slices, map keys and values, interfaces.
func TestClean(t *testing.T) {
	type inner struct {
		Name  string
		Names []string
		ByKey map[string]string
	}
	type msg struct {
		Reason string
		In     *inner
		List   []inner
		Any    any
		Plain  map[string]any
		Str    any
		hidden string
	}
	m := &msg{Reason: "a\x1b[2Jb", In: &inner{Name: "\n", Names: []string{"\a"}, ByKey: map[string]string{"k\x1b": "v\x1b"}},
		List: []inner{{Name: "\r"}}, Any: &inner{Name: "\x07"}, hidden: "\x1b",
		Plain: map[string]any{"v": "\x1b[31m", "list": []any{"\n"}}, Str: "\x1b"}
	if !Dirty(m) || Dirty(&msg{Reason: "fine", In: &inner{ByKey: map[string]string{"k": "v"}}}) {
		t.Fatal("Dirty is wrong")
	}
	Clean(m)
	if Dirty(m) {
		t.Fatal("dirty after Clean")
	}
	if m.Reason != `a\x1b[2Jb` || m.In.Name != `\n` || m.In.Names[0] != `\a` || m.In.ByKey[`k\x1b`] != `v\x1b` || len(m.In.ByKey) != 1 ||
		m.List[0].Name != `\r` || m.Any.(*inner).Name != `\a` || m.Plain["v"] != `\x1b[31m` || m.Plain["list"].([]any)[0] != `\n` || m.Str != `\x1b` {
		t.Fatalf("after Clean: %+v %+v %+v", m, m.In, m.Any)
	}
	if m.hidden != "\x1b" {
		t.Fatal("an unexported field was changed")
	}
}

// FuzzText: whatever the input, the output holds no control character
// and no invalid UTF-8, and clean input comes back unchanged.
func FuzzText(f *testing.F) {
	f.Add("\x1b]0;t\a")
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if firstUnsafe(out) >= 0 {
			t.Fatalf("Text(%q) = %q still holds a control character", s, out)
		}
		if firstUnsafe(s) < 0 && out != s {
			t.Fatalf("clean %q changed to %q", s, out)
		}
		if strings.ContainsRune(out, '\x1b') {
			t.Fatalf("an escape survived: %q", out)
		}
	})
}
