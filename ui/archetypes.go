package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// archetypesPane lists every archetype with its count, memory and
// components (a relation's with the target of the table's rows,
// HomeHive→0v1); enter lists its entities, z shows the empty ones too.
type archetypesPane struct {
	*common
	box
	list
	showEmpty bool
}

func (p *archetypesPane) Title() string { return "Archetypes" }

func (p *archetypesPane) KeyMap() []key.Binding {
	k := p.keys
	return []key.Binding{k.Enter, k.ShowEmpty, k.Views, k.Pause, k.Help, k.Quit}
}

func (p *archetypesPane) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	arch := p.visible()
	switch {
	case key.Matches(km, p.keys.ShowEmpty):
		p.showEmpty = !p.showEmpty
	case key.Matches(km, p.keys.Enter):
		if p.cursor < len(arch) {
			return p.nav.listArchetype(int64(arch[p.cursor].ID) + 1)
		}
	default:
		p.move(p.keys, km, len(arch), p.height)
	}
	return nil
}

func (p *archetypesPane) View() []string {
	var rows []string
	arch := p.visible()
	p.clamp(len(arch))
	for _, a := range arch {
		names := make([]string, len(a.Components))
		for i, c := range a.Components {
			names[i] = p.compName(c)
			for _, t := range a.Targets {
				if t.Kind == c {
					names[i] += "→" + t.Target.String()
				}
			}
		}
		set := strings.Join(names, " ")
		if set == "" {
			set = "(no components)"
		}
		rows = append(rows, fmt.Sprintf("%5d %9d %10s  %s", a.ID, a.Len, protocol.ByteSize(a.Bytes), set))
	}
	title := "components (enter lists them)"
	if hidden := len(p.summary.Archetypes) - len(rows); hidden > 0 {
		title += fmt.Sprintf("; %d empty hidden (z)", hidden)
	}
	return p.draw(p.styles, p.box, fmt.Sprintf("%5s %9s %10s  %s", "id", "entities", "memory", title), rows)
}

// visible are the archetypes the pane lists: the empty ones only when
// asked (z).
func (p *archetypesPane) visible() []protocol.Archetype {
	if p.summary == nil {
		return nil
	}
	if p.showEmpty {
		return p.summary.Archetypes
	}
	var out []protocol.Archetype
	for _, a := range p.summary.Archetypes {
		if a.Len > 0 {
			out = append(out, a)
		}
	}
	return out
}
