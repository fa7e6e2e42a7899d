package ui

import (
	"fmt"
	"strings"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The archetypes pane: every archetype with its count, memory and components.

// archetypes lists the archetypes with their counts, memory and components.
func (m *model) archetypes() []string {
	var rows []string
	hidden := 0
	for _, a := range m.visibleArchetypes() {
		names := make([]string, len(a.Components))
		for i, c := range a.Components {
			names[i] = m.compName(c)
		}
		set := strings.Join(names, " ")
		if set == "" {
			set = "(no components)"
		}
		rows = append(rows, fmt.Sprintf("%5d %9d %10s  %s", a.ID, a.Len, client.Size(a.Bytes), set))
	}
	hidden = len(m.summary.Archetypes) - len(rows)
	title := "components (enter lists them)"
	if hidden > 0 {
		title += fmt.Sprintf("; %d empty hidden (z)", hidden)
	}
	return m.list(fmt.Sprintf("%5s %9s %10s  %s", "id", "entities", "memory", title), rows, m.cursor[viewArchetypes])
}

// visibleArchetypes are the archetypes the view lists: the empty ones only
// when asked (z).
func (m *model) visibleArchetypes() []protocol.Archetype {
	if m.showEmpty || m.summary == nil {
		if m.summary == nil {
			return nil
		}
		return m.summary.Archetypes
	}
	var out []protocol.Archetype
	for _, a := range m.summary.Archetypes {
		if a.Len > 0 {
			out = append(out, a)
		}
	}
	return out
}
