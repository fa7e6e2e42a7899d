package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// pane is one of the numbered views, in one place: its name on the tab,
// what it draws, how many rows its cursor moves over, what its own keys do
// (beyond moving the cursor), and which keys its bottom line hints. The
// root model routes to the pane on screen through this table, so a pane
// is added or changed here and in its file, nowhere else.
type pane struct {
	name  string
	draw  func(m *model) []string
	rows  func(m *model) int                             // nil: no cursor
	key   func(m *model, msg tea.KeyMsg) (tea.Cmd, bool) // nil: no keys of its own
	hints func(k keyMap) []key.Binding                   // nil: the general ones
}

// panes are the views, by number.
var panes = [viewCount]pane{
	viewOverview: {name: "Overview", draw: (*model).overview},
	viewArchetypes: {name: "Archetypes", draw: (*model).archetypes,
		rows: func(m *model) int { return len(m.visibleArchetypes()) },
		key:  (*model).archetypesKey,
		hints: func(k keyMap) []key.Binding {
			return []key.Binding{k.Enter, k.ShowEmpty, k.Views, k.Pause, k.Help, k.Quit}
		}},
	viewEntities: {name: "Entities", draw: (*model).entities,
		hints: func(k keyMap) []key.Binding {
			return []key.Binding{k.Enter, k.Filter, k.Sort, k.Left, k.Right, k.Open, k.Pause, k.Help, k.Quit}
		}},
	viewSystems: {name: "Systems", draw: (*model).systems,
		rows: func(m *model) int { return len(m.summary.Systems) + len(stagesOf(m.summary.Systems)) }},
	viewEvents: {name: "Events", draw: (*model).eventQueues,
		rows: func(m *model) int {
			if m.events == nil {
				return 0
			}
			return len(m.events.Queues)
		}},
	viewJournal: {name: "Journal", draw: (*model).journalLines,
		rows: func(m *model) int { return len(m.journalShown()) },
		key:  (*model).journalKey,
		hints: func(k keyMap) []key.Binding {
			return []key.Binding{k.Enter, k.Filter, k.Views, k.Pause, k.Help, k.Quit}
		}},
	viewResources: {name: "Resources", draw: (*model).resources,
		rows: func(m *model) int { return len(m.summary.Resources) }},
}

// archetypesKey: enter lists the archetype's entities, z shows the empty
// archetypes too.
func (m *model) archetypesKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, m.keys.ShowEmpty):
		m.showEmpty = !m.showEmpty
		return nil, true
	case key.Matches(msg, m.keys.Enter):
		if arch := m.visibleArchetypes(); m.cursor[viewArchetypes] < len(arch) {
			m.arch, m.query, m.offset, m.view = int64(arch[m.cursor[viewArchetypes]].ID)+1, "", 0, viewEntities
			m.cursor[viewEntities] = 0
			return m.pageCmd(), true
		}
	}
	return nil, false
}

// journalKey: enter opens the row's entity.
func (m *model) journalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if key.Matches(msg, m.keys.Enter) {
		if rows := m.journalShown(); m.cursor[viewJournal] < len(rows) {
			return m.openDetail(rows[m.cursor[viewJournal]].Entity), true
		}
	}
	return nil, false
}
