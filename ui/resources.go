package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// resourcesPane lists each resource and its value.
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
		p.move(p.keys, km, len(p.summary.Resources), p.height)
	}
	return nil
}

func (p *resourcesPane) View() []string {
	var rows []string
	for _, r := range p.summary.Resources {
		rows = append(rows, fmt.Sprintf("%-20s %s", r.Name, shortFields(r.Value, r.Fields)))
	}
	if len(rows) == 0 {
		return []string{"no resources"}
	}
	p.clamp(len(rows))
	return p.draw(p.styles, p.box, fmt.Sprintf("%-20s %s", "resource", "value"), rows)
}
