package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The entities pane: a query's or an archetype's entities (the table is table.go).

// entities is the entities view: the table, or why there is none yet.
func (m *model) entities() []string {
	title := "all entities"
	switch {
	case m.arch > 0:
		title = fmt.Sprintf("archetype %d", m.arch-1)
	case m.query != "":
		title = m.query
	}
	if m.pageErr != "" {
		return []string{m.styles.Header.Render(title + " — 0 matches: the agent refused the query"), m.styles.Error.Render(m.pageErr),
			m.styles.Faint.Render("/ edits the query, esc clears it")}
	}
	if m.page == nil {
		return []string{m.styles.Header.Render(title), m.styles.Faint.Render("waiting for the agent's first answer…")}
	}
	return m.tableLines(m.page, title)
}

// pageCmd (re)subscribes the entities window for what is on screen. A new
// query, archetype or sort is a new subscription, with an id of its own:
// frames of the old one still on their way are dropped, and until the first
// frame of the new one arrives the view says it is waiting, never showing
// the old rows under the new title.
func (m *model) pageCmd() tea.Cmd {
	m.lastPageReq = time.Now()
	var unsub tea.Cmd
	if key := fmt.Sprintf("%d %s %s", m.arch, m.query, m.sortBy); key != m.pageKey || m.pageSub == 0 {
		if m.pageSub != 0 {
			unsub = m.src.unsubscribe(m.pageSub)
		}
		m.pageKey, m.page, m.pageErr = key, nil, ""
		m.pageSub = max(m.pageSub+1, subPageFirst)
	}
	sort := m.sortBy
	if m.arch != 0 {
		sort = ""
	}
	sub := m.src.subscribe(protocol.Subscribe{ID: m.pageSub, What: protocol.SubPage, Hz: 5, Query: m.query,
		Archetype: m.arch, Offset: m.offset, Limit: max(m.bodyHeight()-3, 1), Sort: sort})
	return tea.Batch(unsub, sub)
}

// entitiesKey moves the cursor through the query's matches (paging the
// agent's window), opens an entity, moves between columns and sorts.
func (m *model) entitiesKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	visible := max(m.bodyHeight()-3, 1) // the title and the column names
	total := 0
	if m.page != nil {
		total = m.page.Total
	}
	pos := m.offset + m.cursor[viewEntities]
	switch {
	case key.Matches(msg, k.Up):
		pos--
	case key.Matches(msg, k.Down):
		pos++
	case key.Matches(msg, k.PageUp):
		pos -= visible
	case key.Matches(msg, k.PageDown):
		pos += visible
	case key.Matches(msg, k.Top):
		pos = 0
	case key.Matches(msg, k.Bottom):
		pos = total - 1
	case key.Matches(msg, k.Enter):
		if m.page != nil {
			if i := m.cursor[viewEntities]; i < len(m.page.Rows) {
				return m, m.openDetail(m.page.Rows[i].Entity)
			}
		}
		return m, nil
	case key.Matches(msg, k.Left):
		m.colCursor = max(m.colCursor-1, 0)
		return m, nil
	case key.Matches(msg, k.Right):
		if m.page != nil {
			m.colCursor = min(m.colCursor+1, max(len(m.tableColumns(m.page))-1, 0))
		}
		return m, nil
	case key.Matches(msg, k.Sort):
		by, err := m.sortColumn()
		if err != nil {
			m.setFlash(err.Error(), true)
			return m, nil
		}
		m.sortBy, m.offset = by, 0
		return m, m.pageCmd()
	default:
		return m, nil
	}
	pos = max(min(pos, total-1), 0)
	offset := m.offset
	if pos < offset {
		offset = pos
	} else if pos >= offset+visible {
		offset = pos - visible + 1
	}
	m.cursor[viewEntities] = pos - offset
	m.selected = 0
	if m.page != nil && pos-offset < len(m.page.Rows) && offset == m.offset {
		m.selected = m.page.Rows[pos-offset].Entity
	}
	if offset != m.offset {
		m.offset = offset
		return m, m.pageCmd()
	}
	return m, nil
}

// filterPrompt is the entities view's query prompt: checked as typed,
// applied by the agent on enter.
func (m *model) filterPrompt() *prompt {
	return &prompt{kind: promptFilter, label: "/", hint: "enter applies, esc keeps the list",
		check: func(text string) string {
			if _, err := protocol.ParseQuery(text); err != nil {
				return err.Error() // the list keeps its last good result
			}
			return ""
		},
		submit: func(text string) (tea.Cmd, string) {
			q := strings.TrimSpace(text)
			if _, err := protocol.ParseQuery(q); err != nil {
				return nil, err.Error()
			}
			m.query, m.arch, m.offset, m.cursor[viewEntities] = q, 0, 0, 0
			return m.pageCmd(), ""
		}}
}

// keepSelection keeps the cursor on the entity it was on when a new page
// moves rows (sorting, spawns, despawns); if the entity left the window,
// the cursor stays where it was and takes the entity now there.
func (m *model) keepSelection() {
	p := m.page
	if p == nil || len(p.Rows) == 0 {
		return
	}
	if m.selected != 0 {
		for i, r := range p.Rows {
			if r.Entity == m.selected {
				m.cursor[viewEntities] = i
				return
			}
		}
	}
	i := min(m.cursor[viewEntities], len(p.Rows)-1)
	m.cursor[viewEntities] = i
	m.selected = p.Rows[i].Entity
}
