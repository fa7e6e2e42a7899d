package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The journal pane: structural changes, newest first, filtered.

// journalLines lists the journal as the view shows it.
func (m *model) journalLines() []string {
	if len(m.journalShown()) == 0 {
		if m.journalText != "" {
			return []string{"no journal entries for " + m.journalText + " yet (/ changes the filter)"}
		}
		return []string{"no structural changes yet"}
	}
	var rows []string
	for _, e := range m.journalShown() {
		comp := ""
		if e.Component >= 0 {
			comp = m.compName(uint16(e.Component))
		}
		for k, c := range e.Components { // a spawn, with what it was given
			if k > 0 {
				comp += " "
			}
			comp += m.compName(uint16(c))
		}
		if len(comp) > 16 {
			comp = comp[:15] + "…"
		}
		rows = append(rows, fmt.Sprintf("%8d %8d %-8s %-12s %-16s %s", e.Seq, e.Frame, e.Op, e.Entity, comp, e.System))
	}
	head := fmt.Sprintf("%8s %8s %-8s %-12s %-16s %s", "seq", "frame", "op", "entity", "component", "by")
	if m.journalText != "" {
		head += "   (filter: " + m.journalText + ")"
	}
	return m.list(head, rows, m.cursor[viewJournal])
}

// journalShown is the journal as the view lists it: newest first, the op
// filter applied.
func (m *model) journalShown() []protocol.JournalEntry {
	var out []protocol.JournalEntry
	for i := len(m.journal) - 1; i >= 0; i-- {
		if e := m.journal[i]; m.journalOp == "" || e.Op == m.journalOp {
			out = append(out, e)
		}
	}
	return out
}

// journalFilter applies what was typed after / in the journal view: an
// op (spawn despawn add remove set) is kept here; an entity (42v3), a
// component or a system the agent filters.
func (m *model) journalFilter(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	m.journal, m.cursor[viewJournal], m.journalOp = nil, 0, ""
	filter := text
	switch text {
	case "spawn", "despawn", "add", "remove", "set":
		m.journalOp, filter = text, ""
	}
	m.journalText = text
	return m.src.subscribe(protocol.Subscribe{ID: subJournal, What: protocol.SubJournal, Hz: 4, Filter: filter})
}

// maxJournal is how many journal entries the journal view keeps.
const maxJournal = 10000
