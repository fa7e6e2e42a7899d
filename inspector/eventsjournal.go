package inspector

import (
	"cmp"
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

// convertedJournal is the world's journal as clients read it, kept across
// Syncs: each entry is converted once, as it comes, however many
// subscriptions read it and from wherever each one is.
type convertedJournal struct {
	entries []protocol.JournalEntry // oldest first; never changed once here (batches share them)
	upTo    uint64                  // the last sequence number converted
}

// update converts the entries the world's journal took since the last
// call and lets go of those its ring no longer holds.
func (cj *convertedJournal) update(w *ecs.World, ring int) {
	fresh := values.Journal(w.Inspect().JournalSince(cj.upTo))
	if len(fresh) == 0 {
		return
	}
	last := fresh[len(fresh)-1]
	cj.upTo = max(last.Seq, last.To)
	oldest := cj.upTo - min(cj.upTo, uint64(ring)) // entries at or before this are gone from the ring
	keep := cj.entries
	if i, _ := slices.BinarySearchFunc(keep, oldest+1, func(e protocol.JournalEntry, seq uint64) int { return cmp.Compare(e.Seq, seq) }); i > 0 {
		keep = keep[i:]
	}
	// A fresh array: batches made from the old one keep it as it was.
	cj.entries = append(append(make([]protocol.JournalEntry, 0, len(keep)+len(fresh)), keep...), fresh...)
}

// after is the entries after sequence number seq.
func (cj *convertedJournal) after(seq uint64) []protocol.JournalEntry {
	i, _ := slices.BinarySearchFunc(cj.entries, seq+1, func(e protocol.JournalEntry, s uint64) int { return cmp.Compare(e.Seq, s) })
	return cj.entries[i:len(cj.entries):len(cj.entries)]
}

// journalBatch is the entries after subscription s's last one, one batch
// per Sync for every subscription that reads from the same place (cache,
// whose first use brings the converted journal up to date), and moves s
// past them.
func (a *Agent) journalBatch(s *subscription, cache map[uint64]*protocol.JournalBatch) *protocol.JournalBatch {
	if len(cache) == 0 {
		a.conv.update(a.w, a.opts.JournalSize)
	}
	batch, ok := cache[s.journal]
	if !ok {
		batch = &protocol.JournalBatch{Entries: a.conv.after(s.journal)}
		cache[s.journal] = batch
	}
	if n := len(batch.Entries); n > 0 {
		s.journal = max(batch.Entries[n-1].Seq, batch.Entries[n-1].To)
	}
	return batch
}

// journalFilter is a journal subscription's filter as the writer applies
// it, away from the world: the component it names, if one, resolved on
// the game goroutine.
func (a *Agent) journalFilter(text string) protocol.JournalFilter {
	return protocol.NewJournalFilter(text, func(name string) (int, bool) {
		info, ok := a.w.Inspect().ComponentByName(name)
		return int(info.ID), ok
	})
}

// filtered is the journal of subscription id from batch, the entries f
// keeps; nil when it keeps none and the subscription has sent before.
func filtered(id uint32, tick uint64, batch *protocol.JournalBatch, f protocol.JournalFilter, first bool) protocol.Message {
	j := &protocol.Journal{Sub: id, Tick: tick}
	for i := range batch.Entries {
		if f.Keeps(&batch.Entries[i]) {
			j.Entries = append(j.Entries, batch.Entries[i])
		}
	}
	if len(j.Entries) == 0 && !first {
		return nil
	}
	return j
}
