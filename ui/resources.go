package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// resourcesPane lists each resource and its value on one line, and shows
// the one under the cursor whole below the list, a field a line: a value
// wider than the screen is never only its first eighty columns.
type resourcesPane struct {
	*common
	box
	list
}

func (p *resourcesPane) Title() string                     { return "Resources" }
func (p *resourcesPane) SetSize(width, height int) tea.Cmd { p.box = box{width, height}; return nil }
func (p *resourcesPane) KeyMap() []key.Binding             { return p.keys.ShortHelp() }

func (p *resourcesPane) Update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyMsg); ok && p.summary != nil {
		p.move(p.keys, km, len(p.summary.Resources), p.listHeight())
	}
	return nil
}

// listHeight is the rows the list takes: all of them, header included, up
// to half the pane; the selected resource's fields have the rest.
func (p *resourcesPane) listHeight() int {
	n := 0
	if p.summary != nil {
		n = len(p.summary.Resources)
	}
	return max(min(n+1, p.height/2), 2)
}

func (p *resourcesPane) View() []string {
	if p.summary == nil || len(p.summary.Resources) == 0 {
		return []string{"no resources"}
	}
	rs := p.summary.Resources
	rows := make([]string, 0, len(rs))
	for _, r := range rs {
		rows = append(rows, fmt.Sprintf("%-20s %s", r.Name, shortFields(r.Value, r.Fields)))
	}
	p.clamp(len(rows))
	out := p.draw(p.styles, box{p.width, p.listHeight()}, fmt.Sprintf("%-20s %s", "resource", "value"), rows)
	room := p.height - len(out) - 2 // a blank line and the title
	if room < 1 {
		return out
	}
	r := rs[p.cursor]
	fields := appendFields(nil, r.Name, r.Name, r.Value, r.Fields, 1)
	out = append(out, "", p.styles.Title.Render(r.Name))
	if len(fields) == 0 { // a value that is not a struct
		return append(out, "  "+shortFields(r.Value, r.Fields))
	}
	for i, f := range fields {
		if i == room-1 && len(fields) > room {
			return append(out, p.styles.Faint.Render(fmt.Sprintf("  … %d more lines", len(fields)-i)))
		}
		out = append(out, fit(f.text, p.width))
	}
	return out
}
