package ui

import (
	"fmt"
)

// The resources pane: each resource and its value.

func (m *model) resources() []string {
	var rows []string
	for _, r := range m.summary.Resources {
		rows = append(rows, fmt.Sprintf("%-20s %s", r.Name, shortFields(r.Value, r.Fields)))
	}
	if len(rows) == 0 {
		return []string{"no resources"}
	}
	return m.list(fmt.Sprintf("%-20s %s", "resource", "value"), rows, m.cursor[viewResources])
}
