package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// eventsPane lists each event queue with its counts and its recent
// events; enter on an event opens the entity it names.
type eventsPane struct {
	*common
	box
	list
	freezer
	still *protocol.Events // what a frozen pane shows
}

// eventRow is one line of the pane: a queue, or one of its recent events.
type eventRow struct {
	text   string
	queue  *protocol.EventQueue
	event  protocol.Value
	isItem bool // an event, not the queue's line
}

func (p *eventsPane) Title() string { return "Events" }

func (p *eventsPane) KeyMap() []key.Binding {
	k := p.keys
	return []key.Binding{k.Up, k.Down, k.Enter, k.Freeze, k.Views, k.Pause, k.Help, k.Quit}
}

// onScreen samples the event queues while the pane is shown.
func (p *eventsPane) onScreen(on bool) tea.Cmd {
	if !on {
		return p.src.unsubscribe(subEvents)
	}
	return p.src.subscribe(protocol.Subscribe{ID: subEvents, What: protocol.SubEvents, Hz: 4, Sample: 8})
}

func (p *eventsPane) Update(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(eventsMsg); ok {
		p.note(1)
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if key.Matches(km, p.keys.Freeze) {
		p.still = nil
		if p.toggle() {
			p.still = p.events
		}
		return nil
	}
	rows := p.rows()
	if !key.Matches(km, p.keys.Enter) {
		p.move(p.keys, km, len(rows), p.height)
		return nil
	}
	if p.cursor >= len(rows) || !rows[p.cursor].isItem {
		p.nav.flash("enter on an event opens the entity it names", false)
		return nil
	}
	r := rows[p.cursor]
	refs := entityFields(r.event, r.queue.Fields, "")
	if len(refs) == 0 {
		p.nav.flash("this event names no live entity", false)
		return nil
	}
	if len(refs) > 1 {
		p.nav.flash(fmt.Sprintf("opened %s (%s); the event also names %s", refs[0].e, refs[0].name, refs[1].name), false)
	}
	return p.nav.openEntity(refs[0].e)
}

// rows are the pane's lines: each queue, then its recent events.
func (p *eventsPane) rows() []eventRow {
	ev := p.events
	if p.still != nil {
		ev = p.still
	}
	if ev == nil {
		return nil
	}
	var out []eventRow
	for i := range ev.Queues {
		q := &ev.Queues[i]
		out = append(out, eventRow{text: fmt.Sprintf("%-20s %10d %10d %10d", q.Name, q.Previous, q.Current, q.Total), queue: q})
		for _, e := range q.Recent {
			out = append(out, eventRow{text: "    " + shortFields(e, q.Fields), queue: q, event: e, isItem: true})
		}
	}
	return out
}

func (p *eventsPane) View() []string {
	rows := p.rows()
	if len(rows) == 0 {
		return []string{"no event queues"}
	}
	text := make([]string, len(rows))
	for i, r := range rows {
		text[i] = r.text
	}
	p.clamp(len(rows))
	// The agent samples after the frame's Tick: what the game sent during
	// the last frame is "last frame"; "queued now" is what was sent since.
	return p.draw(p.styles, p.box, fmt.Sprintf("%-20s %10s %10s %10s  %s", "queue", "last frame", "queued now", "total", "recent (enter: its entity)")+p.banner("samples"), text)
}

// entityRef is an entity an event names, with the field that names it.
type entityRef struct {
	name string
	e    protocol.EntityID
}

// entityFields lists the non-zero entity fields of a value, by its schema,
// in field order (nested structs included).
func entityFields(v protocol.Value, fs []protocol.FieldSchema, prefix string) []entityRef {
	var out []entityRef
	for _, f := range fs {
		fv, ok := v.Get(f.Name)
		if !ok {
			continue
		}
		switch {
		case f.Kind == "entity":
			if e := protocol.EntityID(uint64(fv.Int()) | fv.Uint()); e != 0 {
				out = append(out, entityRef{prefix + f.Name, e})
			}
		case len(f.Fields) > 0:
			out = append(out, entityFields(fv, f.Fields, prefix+f.Name+".")...)
		}
	}
	return out
}
