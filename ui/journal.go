package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// maxJournal is how many journal entries the UI keeps at least, once it
// has seen that many (at most half as many again).
const maxJournal = 10000

// journalPane lists the structural changes, newest first, filtered by
// entity, component, system (the agent filters) or op (filtered here);
// enter opens the row's entity.
type journalPane struct {
	*common
	box
	list
	op   string // keep entries of this op only ("" all)
	text string // the filter, as typed
	freezer
	still []protocol.JournalEntry // what a frozen pane shows, oldest first
	// listed is shown()'s rows under an op filter, kept until the
	// entries, the op or the freeze change: the screen is drawn far more
	// often than they do.
	listed     []int32
	listedFrom []protocol.JournalEntry // the entries it was made from
	listedOp   string
}

func (p *journalPane) Title() string { return "Journal" }

func (p *journalPane) KeyMap() []key.Binding {
	k := p.keys
	return []key.Binding{k.Enter, k.Filter, k.Freeze, k.Views, k.Pause, k.Help, k.Quit}
}

func (p *journalPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case journalMsg:
		p.take(msg)
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, p.keys.Filter):
			return p.nav.push(newPrompt(p.common, promptJournal, "journal filter: ",
				"an entity (42v3), a component, a system, or spawn despawn add remove set; enter applies", p.text,
				func(text string) (tea.Cmd, string) { return p.filter(text), "" }))
		case key.Matches(msg, p.keys.Freeze):
			p.still = nil
			if p.toggle() {
				p.still = slices.Clone(p.journal)
			}
		case key.Matches(msg, p.keys.Enter):
			if rows := p.shown(); p.cursor < rows.len() {
				return p.nav.openEntity(rows.at(p.cursor).Entity)
			}
		default:
			p.move(p.keys, msg, p.shownCount(), p.height)
		}
	}
	return nil
}

// take adds a frame of entries. Newest first: new rows push the cursor's
// row down. At the top the cursor stays there (the view tails the
// journal); below, it follows its row, so enter opens what was under it.
func (p *journalPane) take(msg journalMsg) {
	if msg.replace {
		p.journal = nil
	}
	before := p.shownCount()
	p.note(len(msg.j.Entries))
	p.journal = append(p.journal, msg.j.Entries...)
	if n := len(p.journal); n > maxJournal*3/2 {
		// Cut to the newest maxJournal once half as many again have come:
		// the move is paid once per maxJournal/2 entries, not per frame.
		p.journal = append(p.journal[:0], p.journal[n-maxJournal:]...)
	}
	if shown := p.shownCount(); !msg.replace && p.cursor > 0 && !p.freezer.on {
		p.cursor = min(p.cursor+max(shown-before, 0), max(shown-1, 0))
	}
}

func (p *journalPane) View() []string {
	shown := p.shown()
	if shown.len() == 0 {
		if p.text != "" {
			return []string{"no journal entries for " + p.text + " yet (/ changes the filter)"}
		}
		return []string{"no structural changes yet"}
	}
	// Only the rows the box shows are formatted: the journal holds ten
	// thousand.
	p.clamp(shown.len())
	row := func(i int) string {
		e := shown.at(i)
		comp := ""
		if e.Component >= 0 {
			comp = p.compName(uint16(e.Component))
		}
		for k, c := range e.Components { // a spawn, with what it was given
			if k > 0 {
				comp += " "
			}
			comp += p.compName(uint16(c))
		}
		if len(comp) > 16 {
			comp = comp[:15] + "…"
		}
		return fmt.Sprintf("%8d %8d %-8s %-12s %-16s %s", e.Seq, e.Frame, e.Op, e.Entity, comp, e.System)
	}
	head := fmt.Sprintf("%8s %8s %-8s %-12s %-16s %s", "seq", "frame", "op", "entity", "component", "by")
	if p.text != "" {
		head += "   (filter: " + p.text + ")"
	}
	head += p.banner("entries")
	return p.drawRows(p.styles, p.box, head, shown.len(), row)
}

// shownList is the journal as the pane lists it: newest first, the op
// filter applied; rows are read where they are, not copied.
type shownList struct {
	all []protocol.JournalEntry
	idx []int32 // the rows' places in all, under an op filter; nil: every entry
}

func (l shownList) len() int {
	if l.idx != nil {
		return len(l.idx)
	}
	return len(l.all)
}

// at is the i-th row, newest first.
func (l shownList) at(i int) *protocol.JournalEntry {
	if l.idx != nil {
		return &l.all[l.idx[i]]
	}
	return &l.all[len(l.all)-1-i]
}

// shown is the journal as the pane lists it.
func (p *journalPane) shown() shownList {
	all := p.journal
	if p.freezer.on {
		all = p.still
	}
	if p.op == "" {
		return shownList{all: all}
	}
	if p.listed != nil && p.listedOp == p.op && len(p.listedFrom) == len(all) && (len(all) == 0 || &p.listedFrom[0] == &all[0]) {
		return shownList{all: all, idx: p.listed}
	}
	idx := []int32{}
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Op == p.op {
			idx = append(idx, int32(i))
		}
	}
	p.listed, p.listedFrom, p.listedOp = idx, all, p.op
	return shownList{all: all, idx: idx}
}

// shownCount is p.shown().len(), counted without building the list: a
// frame of entries (four a second) need not copy ten thousand.
func (p *journalPane) shownCount() int {
	all := p.journal
	if p.freezer.on {
		all = p.still
	}
	if p.op == "" {
		return len(all)
	}
	n := 0
	for i := range all {
		if all[i].Op == p.op {
			n++
		}
	}
	return n
}

// onScreen follows the journal while the pane is shown: from the agent's
// backlog on, with the filter typed.
func (p *journalPane) onScreen(on bool) tea.Cmd {
	if !on {
		return p.src.unsubscribe(subJournal)
	}
	return p.filter(p.text)
}

// filter applies what was typed: an op (spawn despawn add remove set) is
// kept here; an entity (42v3), a component or a system the agent filters.
func (p *journalPane) filter(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	p.journal, p.cursor, p.op = nil, 0, ""
	filter := text
	switch text {
	case "spawn", "despawn", "add", "remove", "set":
		p.op, filter = text, ""
	}
	p.text = text
	return p.src.subscribe(protocol.Subscribe{ID: subJournal, What: protocol.SubJournal, Hz: journalHz, Filter: filter})
}

// journalHz is how often the journal streams its new entries: a log read
// in batches, twice a second, so the view draws little more often than
// the summary makes every view draw.
const journalHz = 2
