package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// maxHits is how many watchpoint hits the pane keeps: all of a session's,
// up to about 2 MB; older ones are dropped and counted.
const maxHits = 10_000

// watchesPane lists the agent's watchpoints (from the summary), each with
// its hits grouped by writer and component (the agent counts them) and a
// narrower watchpoint when the groups point to one (client.Suggest), then
// the hits this UI has seen, newest first, filtered by /. w sets one, x
// removes the one under the cursor, enter turns it on or off, opens a
// group's or a hit's entity, or sets the suggested watchpoint.
type watchesPane struct {
	*common
	box
	list
	hits    []protocol.WatchHit // newest last
	dropped int                 // hits dropped past maxHits
	filter  string              // hits shown contain it
}

// watchRow is one line of the pane and what enter does on it.
type watchRow struct {
	text    string
	of      uint32               // the watchpoint the line belongs to (0: none)
	watch   *protocol.Watchpoint // a watchpoint: enter turns it on or off
	entity  protocol.EntityID    // a group or a hit: enter opens it
	suggest string               // a suggestion: enter sets it
}

func (p *watchesPane) Title() string { return "Watch" }

func (p *watchesPane) KeyMap() []key.Binding {
	k := p.keys
	return []key.Binding{k.Watch, k.ToggleWatch, k.Unwatch, k.Filter, k.Views, k.Pause, k.Help, k.Quit}
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
			p.dropped += len(p.hits) - maxHits
			p.hits = append(p.hits[:0:0], p.hits[len(p.hits)-maxHits:]...)
		}
	case tea.KeyMsg:
		rows := p.rows()
		switch {
		case key.Matches(msg, p.keys.Filter):
			return p.nav.push(newPrompt(p.common, promptCommand, "filter hits: ", "text the hits must contain: a system, an entity, a tick; empty shows all", p.filter,
				func(text string) (tea.Cmd, string) {
					p.filter, p.cursor = strings.TrimSpace(text), 0
					return nil, ""
				}))
		case key.Matches(msg, p.keys.ToggleWatch):
			if p.cursor >= len(rows) {
				return nil
			}
			r := rows[p.cursor]
			switch {
			case r.watch != nil:
				w := r.watch
				on := !w.On || w.Suspended != "" // a suspended one: try again
				return p.src.request(fmt.Sprintf("watch %d %s", w.ID, onOff(on)), func(id uint32) protocol.Message {
					return &protocol.EnableWatch{ID: id, Watch: w.ID, On: on}
				})
			case r.suggest != "":
				expr := r.suggest
				return p.src.request("watch "+expr, func(id uint32) protocol.Message {
					return &protocol.Watch{ID: id, Expr: expr}
				})
			case r.entity != 0:
				return p.nav.openEntity(r.entity)
			default:
				p.nav.flash("this line names no entity", false)
			}
		case key.Matches(msg, p.keys.Unwatch):
			// On a watchpoint or any line of it (a group, a suggestion, a
			// hit): that watchpoint goes.
			if p.cursor >= len(rows) || rows[p.cursor].of == 0 {
				p.nav.flash("this line belongs to no watchpoint: x removes the watchpoint of the line it is on", false)
				return nil
			}
			w := rows[p.cursor].of
			return p.src.request(fmt.Sprintf("remove watch %d", w), func(id uint32) protocol.Message {
				return &protocol.Unwatch{ID: id, Watch: w}
			})
		default:
			p.move(p.keys, msg, len(rows), p.height)
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

// rows are the pane's lines: each watchpoint, its hit groups and its
// suggestion, then the hits that pass the filter, newest first.
func (p *watchesPane) rows() []watchRow {
	ws := p.watches()
	var rows []watchRow
	for i := range ws {
		w := &ws[i]
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
		rows = append(rows, watchRow{text: line, watch: w, of: w.ID})
		for _, g := range w.Groups {
			rows = append(rows, watchRow{text: "        " + groupLine(g, w), entity: g.Entity, of: w.ID})
		}
		if s, ok := client.Suggest(*w); ok {
			rows = append(rows, watchRow{text: fmt.Sprintf("        ⇒ narrower: %s — %s (enter sets it, pausing)", s.Expr, s.Why), suggest: s.Expr, of: w.ID})
		}
	}
	shown := 0
	for i := len(p.hits) - 1; i >= 0; i-- {
		line := hitLine(p.hits[i])
		if p.filter != "" && !strings.Contains(line, p.filter) {
			continue
		}
		shown++
		rows = append(rows, watchRow{text: line, entity: p.hits[i].Entity, of: p.hits[i].Watch})
	}
	if p.filter != "" {
		rows = append(rows, watchRow{text: fmt.Sprintf("  %d of %d hits contain %q (/ changes it)", shown, len(p.hits), p.filter)})
	}
	if p.dropped > 0 {
		rows = append(rows, watchRow{text: fmt.Sprintf("  %d older hits dropped (this view keeps %d; the groups above count all)", p.dropped, maxHits)})
	}
	return rows
}

// groupLine is a hit group: "by grazing on Energy: 8 hits, ticks 120-884,
// Value -40 .. -40, newest 103v1".
func groupLine(g protocol.HitGroup, w *protocol.Watchpoint) string {
	where := g.By
	if g.Component != "" {
		where += " on " + g.Component
	}
	line := fmt.Sprintf("by %s: %d hits, ticks %d-%d", where, g.Hits, g.First, g.Last)
	if g.Numeric {
		field := "value"
		if ex, err := query.ParseQuery(w.Expr); err == nil {
			for _, t := range ex.Terms {
				if t.Kind == query.TermField {
					field = t.Path
					break
				}
			}
		}
		line += fmt.Sprintf(", %s %s .. %s", field, strconv.FormatFloat(g.Min, 'g', 4, 64), strconv.FormatFloat(g.Max, 'g', 4, 64))
	}
	if g.Entity != 0 {
		line += ", newest " + g.Entity.String()
	}
	return line
}

// hitLine is one hit as the list shows it.
// hitLine is a hit as a row: what a narrow terminal must keep first (the
// entity, the writer, the value), then the tick and the hit's sentence.
func hitLine(h protocol.WatchHit) string {
	line := "  ⚑"
	if h.Entity != 0 {
		line += " " + h.Entity.String()
	}
	if h.By != "" {
		line += " by " + h.By
	}
	if h.Old != nil && h.Value != nil {
		line += fmt.Sprintf(" %s → %s", short(*h.Old), short(*h.Value))
	} else if h.Value != nil {
		line += " = " + short(*h.Value)
	}
	if h.Replayed {
		line += " (replayed: not counted again)"
	}
	return fmt.Sprintf("%s  tick %d  %s", line, h.Tick, h.Text)
}

func (p *watchesPane) View() []string {
	rows := p.rows()
	if len(rows) == 0 {
		return p.box.wrap(p.styles.Header.Render("Watchpoints"),
			"none set: w sets one, as exec watch takes it. To find who writes a bad value, log first:",
			"  --log Energy.Value<0    the hits group by writer here, and a narrower watch is offered when one writer stands out",
			"  42v3 Energy.Value<0    despawn 42v3    despawn Predator    add Fleeing    system hunt > 2ms    frame > 20ms",
			"  resource Grid.Cells[12]    the system that changes a resource's value    dangling    a stored handle of the dead")
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = r.text
	}
	p.clamp(len(lines))
	head := fmt.Sprintf("%4s  %-7s %-7s %6s  %s", "id", "kind", "action", "hits", "watchpoint, its hits by writer; then the hits, newest first (enter opens the entity, / filters)")
	return p.draw(p.styles, p.box, head, lines)
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
	return c.nav.push(newPrompt(c, promptCommand, "watch: ", "--log Energy.Value<0 first (only tells; its hits group by writer), 42v3 Energy.Value<0, despawn 42v3, add Fleeing, frame > 20ms; --keep to outlive this UI", text,
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
