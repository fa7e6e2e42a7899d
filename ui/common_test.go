package ui

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

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
// space, never breaking a word, indented past the row's own indent, and
// no line is wider than the terminal.
func TestWrapRowKeepsWordsWhole(t *testing.T) {
	lines := wrapRow("   1        20      240 B  Position Energy Velocity", 40, 3)
	if len(lines) != 2 || lines[0] != "   1        20      240 B  Position" || lines[1] != "     Energy Velocity" {
		t.Fatalf("wrapped as %q", lines)
	}
	// An indent that would take half the width: two cells from the left.
	if lines := wrapRow("            alpha beta gamma", 20, 3); len(lines) != 2 || lines[1] != "  beta gamma" {
		t.Fatalf("a deep row wrapped as %q", lines)
	}
	for _, l := range wrapRow(strings.Repeat("abcdefghij", 9), 40, 3) { // one long word: cut at the width
		if ansi.StringWidth(l) > 40 {
			t.Fatalf("a line of %d cells: %q", ansi.StringWidth(l), l)
		}
	}
	// A styled row (the Systems view's stage lines) is cut at the same
	// words as its plain text, its colour on every line.
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	bold := r.NewStyle().Bold(true)
	row := " frame 42 stopped after grazing (▶): ✓ ran, · still to run"
	styled := wrapRow(bold.Render(row), 24, 3)
	want := wrapRow(row, 24, 3)
	if len(styled) != len(want) {
		t.Fatalf("styled, it wrapped as %q; plain as %q", styled, want)
	}
	for i, l := range styled {
		if ansi.Strip(l) != want[i] || !strings.Contains(l, "\x1b[") {
			t.Fatalf("styled line %d is %q, want %q in its style", i, l, want[i])
		}
	}
	// Wider only by its padding: no line of nothing but the style.
	if lines := wrapRow(bold.Render("stage update: 3ms"+strings.Repeat(" ", 20)), 24, 3); len(lines) != 1 {
		t.Fatalf("a padded styled row wrapped as %q", lines)
	}
}

// A hint or an error wider than the pane is read whole: it goes on over
// lines cut at words, each continuation two cells past the line's own
// indent, none wider than the pane.
func TestBoxWrapKeepsHintsWhole(t *testing.T) {
	got := box{width: 30}.wrap("short", "  --log Energy.Value<0    the hits group by writer here")
	want := []string{"short", "  --log Energy.Value<0    the", "    hits group by writer here"}
	if !slices.Equal(got, want) {
		t.Fatalf("wrapped as %q, want %q", got, want)
	}
	for _, l := range got {
		if ansi.StringWidth(l) > 30 {
			t.Fatalf("a line of %d cells: %q", ansi.StringWidth(l), l)
		}
	}
}

// A styled error is wrapped as plain text, then drawn: cut at words, each
// line in the style, none wider than the pane.
func TestBoxWrapInCutsStyledTextAtWords(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	red := r.NewStyle().Foreground(lipgloss.Color("9"))
	got := box{width: 22}.wrapIn(red, "no component named Bogus in this world")
	var plain []string
	for _, l := range got {
		if !strings.Contains(l, "\x1b[") || ansi.StringWidth(l) > 22 {
			t.Fatalf("a line not drawn in the style, or too wide: %q", l)
		}
		plain = append(plain, ansi.Strip(l))
	}
	if want := []string{"no component named", "  Bogus in this world"}; !slices.Equal(plain, want) {
		t.Fatalf("wrapped as %q, want %q", plain, want)
	}
}
