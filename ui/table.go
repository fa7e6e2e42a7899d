package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The entities view as a table: the entity, then one column per field of
// the page's components (a tag is a marker column), scrolled sideways with
// a column cursor; s sorts by the column under it (the agent sorts, the UI
// shows what it is sent).

// tableColumn is one column: a field of a component, or a tag.
type tableColumn struct {
	comp  uint16
	name  string // "Position.X", or the tag's name
	path  []string
	tag   bool
	width int
}

// columns lists the table's columns for the page, from the schemas.
func (m *model) tableColumns(p *protocol.Page) []tableColumn {
	var out []tableColumn
	for _, c := range p.Columns {
		sc := m.schemaComp(c)
		name := m.compName(c)
		if sc == nil || len(sc.Fields) == 0 {
			out = append(out, tableColumn{comp: c, name: name, tag: true})
			continue
		}
		out = appendLeaves(out, c, name, nil, sc.Fields, 0)
	}
	for i := range out {
		out[i].width = max(ansi.StringWidth(out[i].name)+1, 4) // +1: the sort arrow
	}
	return out
}

func appendLeaves(out []tableColumn, comp uint16, prefix string, path []string, fs []protocol.FieldSchema, depth int) []tableColumn {
	for _, f := range fs {
		p := append(append([]string(nil), path...), f.Name)
		if f.Kind == "struct" && len(f.Fields) > 0 && depth < 2 {
			out = appendLeaves(out, comp, prefix+"."+f.Name, p, f.Fields, depth+1)
			continue
		}
		out = append(out, tableColumn{comp: comp, name: prefix + "." + f.Name, path: p})
	}
	return out
}

func (m *model) schemaComp(id uint16) *protocol.Component {
	if m.summary == nil {
		return nil
	}
	for i := range m.summary.Components {
		if m.summary.Components[i].ID == id {
			return &m.summary.Components[i]
		}
	}
	return nil
}

// cell is what a column shows for a row.
func (m *model) cell(col tableColumn, p *protocol.Page, r protocol.Row) string {
	var v protocol.Value
	for i, c := range p.Columns {
		if c == col.comp && i < len(r.Values) {
			v = r.Values[i]
		}
	}
	if v.Kind() == protocol.KindNil {
		return "·"
	}
	if col.tag {
		return "●"
	}
	var f *protocol.FieldSchema
	if sc := m.schemaComp(col.comp); sc != nil {
		fs := sc.Fields
		for _, name := range col.path {
			if f = field(fs, name); f == nil {
				break
			}
			fs = f.Fields
		}
	}
	for _, name := range col.path {
		var ok bool
		if v, ok = v.Get(name); !ok {
			return "·"
		}
	}
	return shortAs(v, f)
}

// tableLines renders the page as a table in width, from the column cursor.
func (m *model) tableLines(p *protocol.Page, title string) []string {
	cols := m.tableColumns(p)
	m.colCursor = max(0, min(m.colCursor, len(cols)-1))
	cells := make([][]string, len(p.Rows))
	for i, r := range p.Rows {
		cells[i] = make([]string, len(cols))
		for j, c := range cols {
			cells[i][j] = m.cell(c, p, r)
			cols[j].width = min(max(cols[j].width, ansi.StringWidth(cells[i][j])), 24)
		}
	}
	// The first column shown: far enough right that the cursor's fits.
	const entityWidth = 12
	first := min(m.colFirst, m.colCursor)
	for {
		w := entityWidth
		for j := first; j <= m.colCursor && j < len(cols); j++ {
			w += cols[j].width + 2
		}
		if w <= m.width || first >= m.colCursor {
			break
		}
		first++
	}
	m.colFirst = first
	sortNote := ""
	if m.sortBy != "" {
		sortNote = ", sorted by " + m.sortBy
	}
	head := fmt.Sprintf("%s — %d matches, %d-%d%s", title, p.Total, min(p.Offset+1, p.Total), p.Offset+len(p.Rows), sortNote)
	out := []string{m.styles.Header.Render(head)}
	row := func(entity string, vals []string, cursorCol bool) string {
		var b strings.Builder
		b.WriteString(fit(entity, entityWidth))
		for j := first; j < len(cols); j++ {
			if b.Len() > 4*m.width {
				break
			}
			text := fit(vals[j], cols[j].width)
			if cursorCol && j == m.colCursor {
				text = m.styles.Key.Render(text)
			}
			b.WriteString("  " + text)
		}
		return b.String()
	}
	names := make([]string, len(cols))
	for j, c := range cols {
		names[j] = c.name
		switch m.sortBy {
		case c.name:
			names[j] += "↑"
		case "-" + c.name:
			names[j] += "↓"
		}
	}
	out = append(out, m.styles.Faint.Render(row("entity", names, false)))
	for i, r := range p.Rows {
		line := row(r.Entity.String(), cells[i], true)
		if i == m.cursor[viewEntities] {
			line = m.styles.Selected.Render(ansi.Strip(fit(line, m.width)))
		}
		out = append(out, line)
	}
	if len(p.Rows) == 0 {
		out = append(out, m.styles.Faint.Render("no entity matches"))
	}
	return out
}

// sortColumn cycles the sort on the column under the cursor: ascending,
// descending, none.
func (m *model) sortColumn() (string, error) {
	if m.page == nil {
		return "", fmt.Errorf("nothing to sort yet")
	}
	if m.arch != 0 {
		return "", fmt.Errorf("sorting needs a query: / and the archetype's components")
	}
	cols := m.tableColumns(m.page)
	if m.colCursor >= len(cols) || cols[m.colCursor].tag {
		return "", fmt.Errorf("move to a field column to sort by it (← →)")
	}
	name := cols[m.colCursor].name
	switch m.sortBy {
	case name:
		return "-" + name, nil
	case "-" + name:
		return "", nil
	}
	return name, nil
}
