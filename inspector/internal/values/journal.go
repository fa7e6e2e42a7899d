package values

import (
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Journal converts kernel entries to wire entries, folding the adds
// that follow a spawn (same entity, frame and actor) into the spawn's
// entry: one entry per new entity, with its components.
func Journal(entries []ecs.JournalEntry) []protocol.JournalEntry {
	out := make([]protocol.JournalEntry, 0, len(entries))
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		je := protocol.JournalEntry{Seq: e.Seq, Frame: e.Frame, Op: e.Op.String(), Entity: Handle(e.Entity), Component: e.Component, System: e.System}
		if e.Op == ecs.OpSpawn {
			for i+1 < len(entries) {
				n := entries[i+1]
				if n.Op != ecs.OpAdd || n.Entity != e.Entity || n.Frame != e.Frame || n.System != e.System || n.Seq != entries[i].Seq+1 {
					break
				}
				je.Components = append(je.Components, n.Component)
				je.To = n.Seq
				i++
			}
		}
		out = append(out, je)
	}
	return out
}
