package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONEscapesTerminalControls: DEL and the C1 controls in a string
// leave marshalJSON as \u00XX escapes, the rest of the text as it was,
// and the JSON reads back as the same string.
func TestJSONEscapesTerminalControls(t *testing.T) {
	in := map[string]string{"name\u009b": "a\x7fb\u0080\u0085\u009fc é 日本 \u00a0 \x1b[2J"}
	b, err := marshalJSON(in, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range string(b) {
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			t.Fatalf("a control character %U in %s", r, b)
		}
	}
	if !strings.Contains(string(b), `\u009b`) || !strings.Contains(string(b), `\u0080\u0085\u009f`) || !strings.Contains(string(b), "é 日本 \u00a0") {
		t.Fatalf("escaped as %s", b)
	}
	var back map[string]string
	if err := json.Unmarshal(b, &back); err != nil || back["name\u009b"] != in["name\u009b"] {
		t.Fatalf("read back %q (%v), want %q", back, err, in)
	}
}
