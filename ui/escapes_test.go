package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
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

// TestNoEscapeReachesTheScreenFromAFile: the same game recorded and opened
// as a file: the frames the review shows are escaped copies, and the
// replay's own state keeps what the file says.
func TestNoEscapeReachesTheScreenFromAFile(t *testing.T) {
	addr, _ := testgame.Hostile(t)
	path := filepath.Join(t.TempDir(), "hostile.ecsrec")
	r, err := client.StartRecording(client.GameAt(addr, ""), path, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.Done():
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the recording did not end")
	}
	p, err := openPlayer(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	p.subscribe(protocol.Subscribe{ID: subSummary, What: protocol.SubSummary})
	sum := p.frame(subSummary).(summaryMsg).s
	var name string
	for _, sys := range sum.Systems {
		if strings.HasPrefix(sys.Name, "grazing") {
			name = sys.Name
		}
	}
	if !strings.HasPrefix(name, `grazing\x1b]0;pwned`) {
		t.Fatalf("the recorded system's name, as shown: %q", name)
	}
	// The banner's text changes every frame: the last frame, a delta,
	// carries it whole among the resources that changed.
	if p.rec.Frames[p.last()].Keyframe {
		t.Fatal("the recording ends on a keyframe: the test needs a delta")
	}
	banner := ""
	for _, r := range sum.Resources {
		if r.Name == "Banner" {
			banner = r.Value.String() // how a value reaches the screen: it escapes what it holds
		}
	}
	if !strings.Contains(banner, "pwned") || strings.ContainsRune(banner, 0x1b) {
		t.Fatalf("the banner from a delta's resource changes, as shown: %q", banner)
	}
	if !printable.Dirty(p.state.Summary) {
		t.Fatal("the replay's own state was escaped: it no longer says what the file does")
	}
}
