package ui

import (
	"fmt"
)

// The events pane: each queue's counts and its recent events.

// eventQueues lists each event queue with its counts and recent events.
func (m *model) eventQueues() []string {
	if m.events == nil || len(m.events.Queues) == 0 {
		return []string{"no event queues"}
	}
	// The agent samples after the frame's Tick: what the game sent during
	// the last frame is "last frame"; "queued now" is what was sent since.
	out := []string{m.styles.Header.Render(fmt.Sprintf("%-20s %10s %10s %10s  %s", "queue", "last frame", "queued now", "total", "recent"))}
	for _, q := range m.events.Queues {
		out = append(out, fmt.Sprintf("%-20s %10d %10d %10d", q.Name, q.Previous, q.Current, q.Total))
		for _, e := range q.Recent {
			out = append(out, "    "+shortFields(e, q.Fields))
		}
	}
	return out
}
