package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// TestNoEscapeReachesTheScreen: attached to a game whose game name, system
// name, string field, map keys, resource and editing client hold escape
// sequences and a forged line, every view that shows them draws them
// escaped: the screen (colours off in the tests) holds no control
// character but its own line breaks, and no forged line.
func TestNoEscapeReachesTheScreen(t *testing.T) {
	addr, _ := testgame.Hostile(t)
	h := newHarnessAt(t, addr, 160, 48)
	screens := map[string]string{"overview": h.waitFor("Generations")}
	for _, step := range []struct{ keys, want, name string }{
		{"4", `grazing\x1b]0;pwned`, "systems"},
		{"7", "Banner", "resources"},
		{"3", "0v1", "entities"},
	} {
		h.keys(step.keys)
		screens[step.name] = h.waitFor(step.want)
	}
	h.keys("enter")
	screens["detail"] = h.waitFor(`client 1 (evil\x1b]0;pwned`) // the writer of the hostile client's edit
	for name, s := range screens {
		if bad := strings.IndexFunc(s, func(r rune) bool { return (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) }); bad >= 0 {
			t.Errorf("the %s screen holds a control character at %d: %q", name, bad, s[max(0, bad-40):min(len(s), bad+40)])
		}
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " │|"), "FORGED") {
				t.Errorf("the %s screen has a forged line: %q", name, line)
			}
		}
	}
}
