package inspector

import (
	"slices"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Event queues and the structural journal as clients see them.

func (a *Agent) events(id uint32, sample int) *protocol.Events {
	if sample <= 0 {
		sample = 8
	}
	ev := &protocol.Events{Sub: id, Tick: a.tick()}
	for _, q := range a.w.Inspect().EventQueues(sample) {
		eq := protocol.EventQueue{Name: q.Name, Previous: q.Previous, Current: q.Current, Total: q.Total, Fields: values.FieldSchemas(q.Fields)}
		for _, r := range q.Recent {
			eq.Recent = append(eq.Recent, values.Of(r))
		}
		ev.Queues = append(ev.Queues, eq)
	}
	return ev
}

// journal captures the entries after the last one sent, filtered; the
// entries after each sequence number are converted once per Sync (cache).
func (a *Agent) journal(id uint32, s *subscription, cache map[uint64][]protocol.JournalEntry) *protocol.Journal {
	j := &protocol.Journal{Sub: id, Tick: a.tick()}
	f := s.req.Filter
	folded, ok := cache[s.journal]
	if !ok {
		folded = values.Journal(a.w.Inspect().JournalSince(s.journal))
		cache[s.journal] = folded
	}
	if len(folded) > 0 {
		s.journal = max(folded[len(folded)-1].Seq, folded[len(folded)-1].To)
	}
	for _, e := range folded {
		if f != "" && f != e.Entity.String() && f != a.componentName(e.Component) && f != e.System && !slices.ContainsFunc(e.Components, func(c int) bool { return a.componentName(c) == f }) {
			continue
		}
		j.Entries = append(j.Entries, e)
	}
	return j
}

func (a *Agent) componentName(id int) string {
	if id < 0 {
		return ""
	}
	return a.w.Inspect().Component(ecs.ComponentID(id)).Short
}
