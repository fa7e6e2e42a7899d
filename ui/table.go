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
func (p *entitiesPane) tableColumns(pg *protocol.Page) []tableColumn {
	var out []tableColumn
	for _, c := range pg.Columns {
		sc := p.schemaComp(c)
		name := p.compName(c)
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

// cell is what a column shows for a row.
func (p *entitiesPane) cell(col tableColumn, pg *protocol.Page, r protocol.Row) string {
	var v protocol.Value
	for i, c := range pg.Columns {
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
	if sc := p.schemaComp(col.comp); sc != nil {
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
func (p *entitiesPane) tableLines(pg *protocol.Page, title string) []string {
	cols := p.tableColumns(pg)
	p.colCursor = max(0, min(p.colCursor, len(cols)-1))
	cells := make([][]string, len(pg.Rows))
	for i, r := range pg.Rows {
		cells[i] = make([]string, len(cols))
		for j, c := range cols {
			cells[i][j] = p.cell(c, pg, r)
			cols[j].width = min(max(cols[j].width, ansi.StringWidth(cells[i][j])), 24)
		}
	}
	// The first column shown: far enough right that the cursor's fits.
	const entityWidth = 12
	first := min(p.colFirst, p.colCursor)
	for {
		w := entityWidth
		for j := first; j <= p.colCursor && j < len(cols); j++ {
			w += cols[j].width + 2
		}
		if w <= p.width || first >= p.colCursor {
			break
		}
		first++
	}
	p.colFirst = first
	sortNote := ", archetype by archetype (s sorts)" // the world's order: handles jump between tables
	if p.sortBy != "" {
		sortNote = ", sorted by " + p.sortBy
	}
	head := fmt.Sprintf("%s — %d matches, %d-%d%s", title, pg.Total, min(pg.Offset+1, pg.Total), pg.Offset+len(pg.Rows), sortNote)
	out := []string{p.styles.Header.Render(head)}
	row := func(entity string, vals []string, cursorCol bool) string {
		var b strings.Builder
		b.WriteString(fit(entity, entityWidth))
		for j := first; j < len(cols); j++ {
			if b.Len() > 4*p.width {
				break
			}
			text := fit(vals[j], cols[j].width)
			if cursorCol && j == p.colCursor {
				text = p.styles.Key.Render(text)
			}
			b.WriteString("  " + text)
		}
		return b.String()
	}
	names := make([]string, len(cols))
	for j, c := range cols {
		names[j] = c.name
		switch p.sortBy {
		case c.name:
			names[j] += "↑"
		case "-" + c.name:
			names[j] += "↓"
		}
	}
	out = append(out, p.styles.Faint.Render(row("entity", names, false)))
	for i, r := range pg.Rows {
		line := row(r.Entity.String(), cells[i], true)
		if i == p.cursor {
			line = p.styles.Selected.Render(ansi.Strip(fit(line, p.width)))
		}
		out = append(out, line)
	}
	if len(pg.Rows) == 0 {
		out = append(out, p.styles.Faint.Render("no entity matches"))
	}
	return out
}

// sortColumn cycles the sort on the column under the cursor: ascending,
// descending, none.
func (p *entitiesPane) sortColumn() (string, error) {
	if p.page == nil {
		return "", fmt.Errorf("nothing to sort yet")
	}
	if p.arch != 0 {
		return "", fmt.Errorf("sorting needs a query: / and the archetype's components")
	}
	cols := p.tableColumns(p.page)
	if p.colCursor >= len(cols) || cols[p.colCursor].tag {
		return "", fmt.Errorf("move to a field column to sort by it (← →)")
	}
	name := cols[p.colCursor].name
	switch p.sortBy {
	case name:
		return "-" + name, nil
	case "-" + name:
		return "", nil
	}
	return name, nil
}
