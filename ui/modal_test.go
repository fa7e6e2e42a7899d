package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestModalStack: modals open over the pane (and over each other), have
// the keys while open, and closing one gives the keys back to what was
// beneath, the detail included.
func TestModalStack(t *testing.T) {
	src := &fakeSource{}
	m := fixtureModel(src)
	e := protocol.MakeEntityID(3, 1)
	m.Update(keyMsg("o")) // open by handle: the palette, prefilled
	if p := m.topPrompt(); p == nil || p.input.Value() != "open " {
		t.Fatalf("o opened %v", m.modals)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("3v1"), Paste: true})
	m.Update(keyMsg("enter"))
	if len(m.modals) != 0 || !m.detail.shown {
		t.Fatalf("open 3v1: modals %v, detail shown %v", m.modals, m.detail.shown)
	}
	m.Update(detailMsg{&protocol.Detail{Sub: subDetail, Entity: e, Alive: true,
		Components: []protocol.ComponentValue{{Component: "Energy", Value: protocol.MapValue(protocol.Field{Name: "Value", Value: protocol.FloatValue(5)})}}}})
	// e over the detail, ? over e: each closes back to the one beneath.
	m.Update(keyMsg("j"))
	m.Update(keyMsg("e"))
	if p := m.topPrompt(); p == nil || p.kind != promptEdit {
		t.Fatalf("e on Energy.Value opened %v", m.modals)
	}
	if !strings.Contains(m.View(), "Energy.Value = 5") {
		t.Fatalf("the edit prompt is not on the bottom line:\n%s", m.View())
	}
	m.Update(keyMsg("esc"))
	m.Update(keyMsg("?"))
	if !m.helpOpen() || !strings.Contains(m.View(), "any key close") {
		t.Fatalf("? did not open the help:\n%s", m.View())
	}
	m.Update(keyMsg("x")) // any key closes the help, and does nothing else
	if len(m.modals) != 0 || !m.detail.shown || len(src.reqs) != 0 {
		t.Fatalf("after the help: modals %v, detail %v, requests %v", m.modals, m.detail.shown, src.reqs)
	}
	// A question declined sends nothing and says so.
	m.Update(keyMsg("x"))
	if _, ok := m.top().(*confirm); !ok || !strings.Contains(m.View(), "remove Energy from 3v1? [y/N]") {
		t.Fatalf("x did not ask:\n%s", m.View())
	}
	m.Update(keyMsg("n"))
	if len(m.modals) != 0 || len(src.reqs) != 0 || !strings.Contains(m.View(), "cancelled") {
		t.Fatalf("declined: modals %v, requests %v", m.modals, src.reqs)
	}
	// Ctrl-C quits from inside a modal.
	m.Update(keyMsg(":"))
	if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyCtrlC}); cmd == nil {
		t.Fatal("ctrl+c in a prompt did not quit")
	} else if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatal("ctrl+c in a prompt did not quit")
	}
}

// TestRewindKeyTakesWhatTheHelpSays: R asks for a tick, or -N for N ticks
// back, as the help and the README write it; both reach the agent as an
// exact rewind.
func TestRewindKeyTakesWhatTheHelpSays(t *testing.T) {
	for _, c := range []struct {
		typed      string
		tick, back uint64
	}{{"-30", 0, 30}, {"1200", 1200, 0}} {
		src := &fakeSource{}
		m := fixtureModel(src)
		m.Update(keyMsg("R"))
		for _, r := range c.typed {
			m.Update(keyMsg(string(r)))
		}
		m.Update(keyMsg("enter"))
		if len(src.reqs) != 1 {
			t.Fatalf("R %s enter sent %v:\n%s", c.typed, src.reqs, m.View())
		}
		rw, ok := src.reqs[0].(*protocol.Rewind)
		if !ok || rw.Tick != c.tick || rw.Back != c.back || !rw.Exact {
			t.Errorf("R %s enter sent %+v, want tick %d back %d, exact", c.typed, src.reqs[0], c.tick, c.back)
		}
	}
}
