package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// maxHits is how many watchpoint hits the pane keeps.
const maxHits = 200

// watchesPane lists the agent's watchpoints (from the summary) and the
// hits this UI has seen, newest first. w sets one, x removes the one under
// the cursor, enter turns it on or off, or opens a hit's entity.
type watchesPane struct {
	*common
	box
	list
	hits []protocol.WatchHit // newest last
}

func (p *watchesPane) Title() string                     { return "Watch" }
func (p *watchesPane) SetSize(width, height int) tea.Cmd { p.box = box{width, height}; return nil }

func (p *watchesPane) KeyMap() []key.Binding {
	k := p.keys
	return []key.Binding{k.Watch, k.ToggleWatch, k.Unwatch, k.Views, k.Pause, k.Help, k.Quit}
}

// watches are the agent's watchpoints, as last summarised.
func (p *watchesPane) watches() []protocol.Watchpoint {
	if p.summary == nil {
		return nil
	}
	return p.summary.Watches
}

func (p *watchesPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case watchHitMsg:
		p.hits = append(p.hits, *msg.h)
		if len(p.hits) > maxHits {
			p.hits = p.hits[len(p.hits)-maxHits:]
		}
	case tea.KeyMsg:
		ws := p.watches()
		rows := len(ws) + len(p.hits)
		switch {
		case key.Matches(msg, p.keys.ToggleWatch):
			if p.cursor < len(ws) {
				w := ws[p.cursor]
				on := !w.On || w.Suspended != "" // a suspended one: try again
				return p.src.request(fmt.Sprintf("watch %d %s", w.ID, onOff(on)), func(id uint32) protocol.Message {
					return &protocol.EnableWatch{ID: id, Watch: w.ID, On: on}
				})
			}
			if i := p.cursor - len(ws); i < len(p.hits) {
				if h := p.hits[len(p.hits)-1-i]; h.Entity != 0 {
					return p.nav.openEntity(h.Entity)
				}
				p.nav.flash("this hit names no entity", false)
			}
		case key.Matches(msg, p.keys.Unwatch):
			if p.cursor < len(ws) {
				w := ws[p.cursor]
				return p.src.request(fmt.Sprintf("remove watch %d", w.ID), func(id uint32) protocol.Message {
					return &protocol.Unwatch{ID: id, Watch: w.ID}
				})
			}
		default:
			p.move(p.keys, msg, rows, p.height)
		}
	}
	return nil
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func (p *watchesPane) View() []string {
	ws := p.watches()
	var rows []string
	for _, w := range ws {
		state := "pauses"
		if w.Log {
			state = "logs"
		}
		if !w.On {
			state = "off"
		}
		line := fmt.Sprintf("%4d  %-7s %-7s %6d  %s", w.ID, w.Kind, state, w.Hits, w.Expr)
		if w.Suspended != "" && w.On {
			line = fmt.Sprintf("%4d  %-7s %-7s %6d  %s — suspended (enter tries again): %s", w.ID, w.Kind, "SUSP", w.Hits, w.Expr, w.Suspended)
		}
		rows = append(rows, line)
	}
	for i := len(p.hits) - 1; i >= 0; i-- {
		h := p.hits[i]
		line := fmt.Sprintf("  ⚑ tick %-8d %s", h.Tick, h.Text)
		if h.Old != nil && h.Value != nil {
			line += fmt.Sprintf("  (%s → %s)", short(*h.Old), short(*h.Value))
		} else if h.Value != nil {
			line += "  = " + short(*h.Value)
		}
		rows = append(rows, line)
	}
	if len(rows) == 0 {
		return []string{p.styles.Header.Render("Watchpoints"),
			"none set: w sets one, as exec watch takes it:",
			"  Energy.Value<0    42v3 Energy.Value<0    despawn 42v3    add Fleeing    system hunt > 2ms    frame > 20ms",
			"  --log first: it only tells, the game keeps running"}
	}
	p.clamp(len(rows))
	head := fmt.Sprintf("%4s  %-7s %-7s %6s  %s", "id", "kind", "action", "hits", "watchpoint; then the hits, newest first (enter opens the entity)")
	return p.draw(p.styles, p.box, head, rows)
}

// watchPrompt sets a watchpoint: what exec watch takes (--log first for
// one that only tells, --keep too for one that stays after this UI
// quits), read by the same parser; prefilled with an entity when set from
// its detail. A read-only session sets log-only ones.
func watchPrompt(c *common, text string) tea.Cmd {
	parse := func(text string) (func(uint32) protocol.Message, string, error) {
		args := strings.Fields(text)
		if c.readOnly && !slices.Contains(args, "--log") {
			args = append([]string{"--log"}, args...)
		}
		return client.ParseCommand(append([]string{"watch"}, args...))
	}
	return c.nav.push(newPrompt(c, promptCommand, "watch: ", "Energy.Value<0, 42v3 Energy.Value<0, despawn 42v3, add Fleeing, frame > 20ms; --log first to only tell, --keep to outlive this UI", text,
		func(text string) (tea.Cmd, string) {
			build, what, err := parse(text)
			if err != nil {
				return nil, strings.TrimPrefix(err.Error(), "watch: ")
			}
			return c.src.request(what, build), ""
		}).withCheck(func(text string) string {
		if strings.TrimSpace(strings.NewReplacer("--log", "", "--keep", "").Replace(text)) == "" {
			return ""
		}
		if _, _, err := parse(text); err != nil {
			return strings.TrimPrefix(err.Error(), "watch: ")
		}
		return ""
	}))
}
