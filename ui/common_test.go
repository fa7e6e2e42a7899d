package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

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

// TestSelectedRowIsShownWhole: the row under the cursor, wider than the
// pane, goes on over the next lines (at most maxWrap more, the last cut
// with …), at a space when one is in the line's second half; the other
// rows are cut; the pane never grows past its height.
func TestSelectedRowIsShownWhole(t *testing.T) {
	long := "movement  r:Velocity,Position,Energy,Herbivore,Predator w:Position,Velocity,Fleeing,Age"
	rows := []string{"a short row", long, "another short row"}
	l := &list{cursor: 1}
	out := l.draw(Styles{}, box{30, 10}, "header", rows)
	text := strings.Join(out, "\n")
	for _, part := range []string{"movement  r:Velocity,Position,", "  Energy,Herbivore,Predator ", "  w:Position,Velocity,Fleeing,", "  Age", "a short row", "another short row"} {
		if !strings.Contains(text, part) {
			t.Fatalf("missing %q:\n%s", part, text)
		}
	}
	for _, line := range out {
		if ansi.StringWidth(line) > 30 {
			t.Fatalf("a line wider than the pane: %q", line)
		}
	}
	huge := strings.Repeat("0123456789", 20)
	for h := 1; h <= 6; h++ {
		out := (&list{cursor: 0}).draw(Styles{}, box{20, h}, "header", []string{huge, "x", "y"})
		if len(out) > max(h, 2) {
			t.Fatalf("height %d: %d lines:\n%s", h, len(out), strings.Join(out, "\n"))
		}
	}
	out = (&list{cursor: 0}).draw(Styles{}, box{20, 10}, "header", []string{huge})
	if len(out) != 1+1+maxWrap || !strings.HasSuffix(strings.TrimSpace(out[len(out)-1]), "…") {
		t.Fatalf("a row past maxWrap lines: %q", out)
	}
}

// The status bar drops whole parts, the least needed first, to fit: at
// 80 columns the agent's address stays whole, never cut in the middle.
func TestStatusBarKeepsTheAddressWhole(t *testing.T) {
	parts := []statusPart{{"PAUSED read-only", 0}, {"tick 40213", 1}, {"frame 16.60ms", 5}, {"100000 entities", 6},
		{"59.8 ticks/s", 7}, {"⚑ watch 2 at tick 40213", 3}, {"192.168.100.200:7777", 2}}
	got := fitParts(parts, 79)
	if !strings.Contains(got, "192.168.100.200:7777") || !strings.Contains(got, "tick 40213") {
		t.Fatalf("at 80 columns: %q", got)
	}
	if strings.Contains(got, "ticks/s") || ansi.StringWidth(got) > 79 {
		t.Fatalf("at 80 columns the least needed parts stay: %q", got)
	}
	if got := fitParts(parts, 300); !strings.Contains(got, "59.8 ticks/s") || !strings.HasSuffix(got, "192.168.100.200:7777") {
		t.Fatalf("a wide terminal shows all, in order: %q", got)
	}
	// Stopped inside a frame, where it stopped matters most.
	halted := []statusPart{{"STOPPED MID-FRAME", 0}, {"tick 40213", 1}, {"after grazing, system 4 of 11", 1}, {"frame 16.60ms", 5}, {"192.168.100.200:7777", 2}}
	if got := fitParts(halted, 79); !strings.Contains(got, "after grazing, system 4 of 11") || strings.Contains(got, "192.168.100.") && !strings.Contains(got, "192.168.100.200:7777") {
		t.Fatalf("stopped, at 80 columns: %q", got)
	}
}

// A selected row too wide for a narrow terminal goes on over lines at a
// space, never breaking a word, and no line is wider than the terminal.
func TestWrapRowKeepsWordsWhole(t *testing.T) {
	lines := wrapRow("   1        20      240 B  Position Energy Velocity", 40, 3)
	if len(lines) != 2 || lines[0] != "   1        20      240 B  Position" || lines[1] != "  Energy Velocity" {
		t.Fatalf("wrapped as %q", lines)
	}
	for _, l := range wrapRow(strings.Repeat("abcdefghij", 9), 40, 3) { // one long word: cut at the width
		if ansi.StringWidth(l) > 40 {
			t.Fatalf("a line of %d cells: %q", ansi.StringWidth(l), l)
		}
	}
}
