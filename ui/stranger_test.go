package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFindTheStarveBugWithoutTheWalkthrough drives the UI by keys as a
// stranger to the demo would, knowing only that some Energy goes wrong:
// a wide log-only watch, the Watch view's hits grouped by writer, the
// narrower watch they point to (enter on it), and the stop inside the
// frame right after the write, on the live entity showing -40 and
// "written by grazing". Nothing about the victim is known beforehand.
func TestFindTheStarveBugWithoutTheWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the planted bug to strike")
	}
	h := newHarnessWith(t, 160, 48, "starve")
	h.waitFor("entities")
	h.keys("w")
	h.update(keyMsg("--log Energy.Value<0"))
	h.keys("enter")
	h.keys("8")
	h.waitForLong("⇒ narrower: ", 60*time.Second)
	// The cursor down to the suggestion, wherever it sits among the groups.
	for i := 0; i < 40 && !strings.Contains(h.cursorLine(), "⇒ narrower"); i++ {
		h.keys("j")
	}
	line := h.cursorLine()
	if !strings.Contains(line, "⇒ narrower: Energy.Value<-20") || !strings.Contains(line, "only grazing's hits") {
		t.Fatalf("the suggestion under the cursor: %q", line)
	}
	h.keys("enter")
	v := h.waitForLong("STOPPED MID-FRAME", 60*time.Second)
	if !strings.Contains(v, "after grazing, system") {
		t.Fatalf("the status bar does not say where the frame stopped:\n%s", v)
	}
	victim := regexp.MustCompile(`Energy\.Value<-20: Energy of ([0-9]+v[0-9]+)`).FindStringSubmatch(h.waitFor("Energy.Value<-20: Energy of"))
	if victim == nil {
		t.Fatal("no hit of the narrower watchpoint on screen")
	}
	// Down to that hit and open it: enter on a hit opens its entity.
	for i := 0; i < 60 && !strings.Contains(h.cursorLine(), "Energy.Value<-20: Energy of"); i++ {
		h.keys("j")
	}
	h.keys("enter")
	h.waitFor("Entity " + victim[1])
	h.waitFor("Value = -40")
	h.waitFor("written by grazing in frame")
	if v := h.m.View(); !strings.Contains(v, "STOPPED MID-FRAME") {
		t.Fatalf("the game did not stay stopped while the detail opened:\n%s", v)
	}
}

// waitForLong is waitFor with a longer wait, for what the game does in
// its own time (a planted bug striking).
func (h *harness) waitForLong(want string, wait time.Duration) string {
	h.t.Helper()
	deadline := time.After(wait)
	for {
		v := h.m.View()
		if strings.Contains(v, want) {
			return v
		}
		select {
		case msg := <-h.msgs:
			h.update(msg)
		case <-deadline:
			rows := -1
			if h.m.entities.page != nil {
				rows = len(h.m.entities.page.Rows)
			}
			h.t.Fatalf("the screen never showed %q in %v (detail %v, view %d, rows %d, cursor %d, prompt open %v); it shows:\n%s",
				want, wait, h.m.detail.shown, h.m.view, rows, h.m.entities.cursor, h.m.topPrompt() != nil, v)
		}
	}
}

// cursorLine is the Watch view's row under the cursor.
func (h *harness) cursorLine() string {
	w := h.m.panes[viewWatches].(*watchesPane)
	rows := w.rows()
	if c := w.cursor; c < len(rows) {
		return rows[c].text
	}
	return ""
}
