package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"pgregory.net/rapid"

	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestUINeverBreaksAtAnySize renders every view and modal at sizes from
// 1x1 to 250x80, with resizes in between: no panic, no line wider than the
// terminal, no more lines than it has.
func TestUINeverBreaksAtAnySize(t *testing.T) {
	h := newHarness(t, 160, 48)
	h.waitFor("entities")
	h.keys("3")
	h.waitFor("matches")
	// The modes: each a way to get there from the entities view.
	modes := []struct {
		name string
		keys []string
	}{
		{"overview", []string{"1"}}, {"archetypes", []string{"2"}}, {"entities", []string{"3"}}, {"systems", []string{"4"}},
		{"events", []string{"5"}}, {"journal", []string{"6"}}, {"resources", []string{"7"}}, {"watch", []string{"8"}},
		{"detail", []string{"3", "enter"}}, {"help", []string{"?"}}, {"filter", []string{"3", "/", "E", "n"}},
		{"palette", []string{":", "s", "e", "t"}}, {"spawn form", []string{"n"}}, {"spawn form fields", []string{"n", "enter"}}, {"add form", []string{"3", "enter", "a"}},
		{"add form fields", []string{"3", "enter", "a", "enter"}}, {"hierarchy", []string{"3", "enter", "T"}}, {"question", []string{"3", "enter", "D"}},
	}
	for i, mode := range modes {
		if testpace.Race && i%8 != 0 {
			continue // the race run takes a sample of the modes: the plain run covers them all
		}
		t.Run(mode.name, func(t *testing.T) {
			h.t = t
			h.update(tea.WindowSizeMsg{Width: 160, Height: 48})
			h.m.modals = nil
			h.keys("esc", "esc", "esc", "3", "g")
			h.waitFor("matches, 1-")
			for _, k := range mode.keys {
				h.keys(k)
				h.settle()
				if k == "enter" && h.m.detail.shown && h.m.topForm() == nil {
					h.waitFor("archetype")
				}
			}
			reached := map[string]bool{"detail": h.m.detail.shown, "help": h.m.helpOpen(), "filter": h.m.topPrompt() != nil && h.m.topPrompt().kind == promptFilter,
				"palette": h.m.topPrompt() != nil && h.m.topPrompt().kind == promptCommand, "spawn form": h.m.topForm() != nil, "add form": h.m.topForm() != nil,
				"spawn form fields": h.m.topForm() != nil, "add form fields": h.m.topForm() != nil, "hierarchy": h.m.topTree() != nil, "question": h.m.topConfirm() != nil}
			if ok, named := reached[mode.name]; named && !ok {
				t.Fatalf("the keys %v did not open the %s:\n%s", mode.keys, mode.name, h.m.View())
			}
			rapid.Check(t, func(rt *rapid.T) {
				for range rapid.IntRange(1, 4).Draw(rt, "resizes") {
					w := rapid.IntRange(1, 250).Draw(rt, "width")
					ht := rapid.IntRange(1, 80).Draw(rt, "height")
					view := func() (v string, err error) {
						defer func() {
							if r := recover(); r != nil {
								err = fmt.Errorf("panic: %v", r)
							}
						}()
						h.update(tea.WindowSizeMsg{Width: w, Height: ht})
						for range rapid.IntRange(0, 6).Draw(rt, "moves") {
							h.update(keyMsg(rapid.SampledFrom([]string{"down", "up", "tab", "shift+tab"}).Draw(rt, "key")))
						}
						return h.m.View(), nil
					}
					v, err := view()
					if err != nil {
						rt.Fatalf("%s at %dx%d: %v", mode.name, w, ht, err)
					}
					lines := strings.Split(v, "\n")
					if len(lines) > ht {
						rt.Fatalf("%s at %dx%d: %d lines", mode.name, w, ht, len(lines))
					}
					for i, l := range lines {
						if lw := ansi.StringWidth(l); lw > w {
							rt.Fatalf("%s at %dx%d: line %d is %d wide: %q", mode.name, w, ht, i, lw, l)
						}
					}
				}
			})
		})
	}
}

// settle applies the messages that have arrived.
func (h *harness) settle() {
	for {
		select {
		case msg := <-h.msgs:
			h.update(msg)
		default:
			return
		}
	}
}

// TestUIKeyBursts: keys that arrive in one message are applied one by one,
// and text after a key that opens a prompt lands in the prompt.
func TestUIKeyBursts(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.waitFor("entities")
	h.keys("2")
	h.waitFor("components (enter lists them)")
	h.keys("z") // every archetype, the empty ones too: enough rows for three moves
	h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jjj")})
	if c := h.m.panes[viewArchetypes].(*archetypesPane).cursor; c != 3 {
		t.Fatalf("jjj in one message moved the cursor to %d, want 3", c)
	}
	h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k3/Energy")})
	if h.m.topPrompt() == nil || h.m.topPrompt().kind != promptFilter || h.m.view != viewEntities || h.m.topPrompt().input.Value() != "Energy" {
		t.Fatalf("k3/Energy: prompt %v, view %d", h.m.topPrompt(), h.m.view)
	}
	h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(".Value<5"), Paste: true})
	if got := h.m.topPrompt().input.Value(); got != "Energy.Value<5" {
		t.Fatalf("a paste into the filter: %q", got)
	}
}

// TestUIHonestStates: a query the agent refuses shows its error in place
// of rows (0 matches) until the query changes; a new query shows that it
// waits rather than the old rows under the new title.
func TestUIHonestStates(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.waitFor("entities")
	h.keys("3")
	h.waitFor("all entities — ")
	h.keys("/")
	h.submit("Position.Z>1")
	if v := h.m.View(); !strings.Contains(v, "waiting for the agent") || strings.Contains(v, "Velocity{") {
		t.Fatalf("right after a new query the old rows show:\n%s", v)
	}
	v := h.waitFor("the agent refused the query")
	if !strings.Contains(v, "no field Z") || strings.Contains(v, "Velocity{") {
		t.Fatalf("a refused query:\n%s", v)
	}
	h.keys("esc")
	h.waitFor("all entities — ")
	h.keys("2")
	h.waitFor("components (enter lists them)")
	h.keys("j", "enter")
	h.waitFor("archetype ")
	h.keys("esc")
	if h.m.view != viewArchetypes {
		t.Fatalf("esc from an archetype's entities went to view %d, want the archetypes", h.m.view)
	}
}

// TestUINavigation: any entity is one keystroke away (o and a handle),
// references are followed (u to the parent) and esc walks back the way
// came, with a breadcrumb; view keys work from the detail view.
func TestUINavigation(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.waitFor("entities")
	h.keys("o")
	h.submit("1v1")
	h.waitFor("Entity 1v1")
	h.waitFor("parent: 0v1")
	h.keys("u")
	v := h.waitFor("Entity 0v1 ← 1v1")
	if !strings.Contains(v, "children") {
		t.Errorf("the pack leader shows no children:\n%s", v)
	}
	h.keys("esc")
	h.waitFor("Entity 1v1")
	if strings.Contains(h.m.View(), "←") {
		t.Error("the trail was not walked back")
	}
	h.keys("esc")
	if h.m.detail.shown {
		t.Fatal("esc at the start of the trail did not close the detail")
	}
	h.keys("o")
	h.submit("1v1")
	h.waitFor("Entity 1v1")
	h.keys("4")
	h.waitFor("hunting")
	if h.m.detail.shown {
		t.Fatal("a view key from the detail view left the detail open")
	}
	h.keys("o")
	h.submit("nonsense")
	h.waitFor(`"nonsense" is not an entity`)
}

// TestEightyColumnsKeepWhatMatters: at 80x24 the status bar keeps the
// tick rate while the game runs and, paused, the key that resumes it; the
// tabs name the pane on screen whole and the others by their keys; a hit's
// row starts with its entity, writer and value.
func TestEightyColumnsKeepWhatMatters(t *testing.T) {
	h := newHarness(t, 80, 24)
	status := func() string { lines := strings.Split(h.m.View(), "\n"); return lines[len(lines)-1] }
	h.waitFor("ticks/s")
	if !strings.Contains(status(), "ticks/s") {
		t.Fatalf("the status bar at 80 columns: %q", status())
	}
	if tabs := strings.Split(h.m.View(), "\n")[0]; !strings.Contains(tabs, "[1 Overview]") || strings.Contains(tabs, "Arch") {
		t.Fatalf("the tabs at 80 columns: %q", tabs)
	}
	h.keys("space")
	h.waitFor("PAUSED (space resumes)")
	v := protocol.FloatValue(-40.02)
	row := fit(hitLine(protocol.WatchHit{Watch: 1, Tick: 5594, Entity: protocol.MakeEntityID(2363, 1), By: "grazing", Value: &v,
		Text: "Energy.Value<-40: Energy of 2363v1, written by grazing (and 2084 more)"}), 80)
	if !strings.HasPrefix(row, "  ⚑ 2363v1 by grazing = -40.02") {
		t.Fatalf("a hit's row at 80 columns: %q", row)
	}
}
