package ui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// TestLoadingSaysHowFarAndStopsOnQ: while a recording's first frame is
// rebuilt, the screen says how far the replay got; q quits at once and
// stops the replay itself at its next step.
func TestLoadingSaysHowFarAndStopsOnQ(t *testing.T) {
	p, err := openPlayerAtNone(testgame.Record(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	m := &loadingModel{p: p}
	m.Update(loadProgressMsg{applied: 640, of: 1000})
	if v := m.View(); !strings.Contains(v, "640 of 1000 frames (64%)") || !strings.Contains(v, "q or ctrl-c stops") {
		t.Fatalf("the loading screen: %q", v)
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	if cmd == nil || cmd() != tea.Quit() || !m.quit {
		t.Fatal("q did not quit the loading screen")
	}
	if err := p.seek(p.last()); !errors.Is(err, recording.ErrStopped) {
		t.Fatalf("a replay after q: %v, want it stopped", err)
	}
}
