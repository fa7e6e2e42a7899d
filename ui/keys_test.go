package ui

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// TestEveryBindingIsMatched: a key the help lists must do something: each
// binding of the keymap is matched (key.Matches) somewhere in the UI, so
// rebinding it changes what the key does, not only the help.
func TestEveryBindingIsMatched(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for f := range reflect.TypeFor[keyMap]().Fields() {
		re := regexp.MustCompile(`Matches\(\w+, (k|\w+\.keys)\.` + f.Name + `\)`)
		if !re.MatchString(src.String()) {
			t.Errorf("the binding %s is in the help but no key.Matches uses it", f.Name)
		}
	}
}

// TestKeysDoWhatTheirHintsSay: / in the Watch view filters its hits (it
// does not jump to Entities), G in a review's list goes to its bottom (not
// the recording's end), and the Chart's hint for x speaks of pins.
func TestKeysDoWhatTheirHintsSay(t *testing.T) {
	m := reviewModel(t, testgame.Record(t))
	press(m, "8", "/")
	if m.view != viewWatches || !strings.Contains(m.View(), "filter hits:") {
		t.Fatalf("/ in the Watch view: view %d\n%s", m.view, m.View())
	}
	// In review, G is the list's bottom, as everywhere: < > move the
	// timeline.
	press(m, "esc", "<", "3", "G")
	if m.play.idx != 0 {
		t.Fatalf("G in a review's Entities moved the timeline to frame %d", m.play.idx)
	}
	for _, b := range m.chart.KeyMap() {
		if h := b.Help(); h.Key == "x" && h.Desc != "remove the pin" {
			t.Fatalf("the Chart's hint for x: %q", h.Desc)
		}
	}
}
