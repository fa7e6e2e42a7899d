package ecs

// JournalOp is the kind of structural change a journal entry records.
type JournalOp uint8

// Structural changes the journal records.
const (
	OpSpawn JournalOp = iota + 1
	OpDespawn
	OpAdd
	OpRemove
)

var journalOpNames = [...]string{"", "spawn", "despawn", "add", "remove"}

// String names the operation: "spawn", "despawn", "add" or "remove".
func (o JournalOp) String() string {
	if int(o) < len(journalOpNames) {
		return journalOpNames[o]
	}
	return "?"
}

// NoComponent is the Component of journal entries that concern no single
// component (spawn and despawn).
const NoComponent = -1

// JournalEntry is one structural change: what happened to which entity, at
// which frame, and who did it: a system's name (for changes it queued in its
// command buffer), "commands" for the world's own buffer, or "external" for
// direct calls.
type JournalEntry struct {
	Seq       uint64 // position in the journal since it was enabled, from 1
	Frame     uint64
	Op        JournalOp
	Entity    Entity
	Component int // a ComponentID, or NoComponent
	System    string
}

// journal is a bounded ring of the newest entries, kept compact (16 bytes
// each, one cache line holds four): names of systems are interned, the
// sequence number implied, the frame kept as its low 32 bits (entries in a
// ring are never 2^32 frames old), the operation packed beside the
// component.
type journal struct {
	ring []journalRec
	next uint64 // total entries written
	pos  int    // where the next entry goes: next % len(ring), without a division
}

type journalRec struct {
	e      Entity
	frame  uint32
	compOp uint16 // component id + 1 in the low 9 bits, the op above
	actor  uint16
}

const compBits = 9 // holds MaxComponents ids and NoComponent

// The build fails here if MaxComponents outgrows compBits.
const _ = uint(1<<compBits - 1 - MaxComponents)

func packCompOp(comp int, op JournalOp) uint16 { return uint16(comp+1) | uint16(op)<<compBits }

func (r *journalRec) comp() int     { return int(r.compOp&(1<<compBits-1)) - 1 }
func (r *journalRec) op() JournalOp { return JournalOp(r.compOp >> compBits) }

// frameOf widens a record's 32-bit frame with the high bits of now.
func frameOf(low uint32, now uint64) uint64 { return now - uint64(uint32(now)-low) }

// slot returns the record to fill next. Filling it field by field, rather
// than copying a struct built on the stack, avoids a store-forwarding stall
// that cost more than the rest of a spawn.
func (j *journal) slot() *journalRec {
	r := &j.ring[j.pos]
	if j.pos++; j.pos == len(j.ring) {
		j.pos = 0
	}
	j.next++
	return r
}

// actorID interns a name for the journal's System field. Command buffers
// may be made from several goroutines: it locks.
func (w *World) actorID(name string) uint16 {
	w.actorsMu.Lock()
	defer w.actorsMu.Unlock()
	for i, n := range w.actors {
		if n == name {
			return uint16(i)
		}
	}
	if len(w.actors) == 1<<16-1 {
		return 0
	}
	w.actors = append(w.actors, name)
	return uint16(len(w.actors) - 1)
}

// EnableJournal starts recording structural changes in a ring of the given
// capacity (the newest capacity entries are kept); 0 turns it off. A world
// without a journal pays one nil check per structural change.
func (w *World) EnableJournal(capacity int) {
	if capacity <= 0 {
		w.journal = nil
		return
	}
	w.journal = &journal{ring: make([]journalRec, capacity)}
}

// Journal returns the kept entries, oldest first.
func (w *World) Journal() []JournalEntry {
	j := w.journal
	if j == nil {
		return nil
	}
	n := min(j.next, uint64(len(j.ring)))
	out := make([]JournalEntry, 0, n)
	for s := j.next - n; s < j.next; s++ {
		r := &j.ring[s%uint64(len(j.ring))]
		out = append(out, JournalEntry{Seq: s + 1, Frame: frameOf(r.frame, w.frame), Op: r.op(), Entity: r.e, Component: r.comp(), System: w.actorName(r.actor)})
	}
	return out
}

// JournalSince returns the kept entries with Seq greater than seq, oldest first.
func (w *World) JournalSince(seq uint64) []JournalEntry {
	all := w.Journal()
	for i, e := range all {
		if e.Seq > seq {
			return all[i:]
		}
	}
	return nil
}

// logStructural records a change if the journal is on.
func (w *World) logStructural(op JournalOp, e Entity, comp int) {
	if j := w.journal; j != nil {
		r := j.slot()
		r.e, r.frame, r.compOp, r.actor = e, uint32(w.frame), packCompOp(comp, op), w.actor
	}
}

// logMove records the components a table move added and removed.
func (w *World) logMove(e Entity, src, dst *table) {
	if w.journal == nil {
		return
	}
	for _, id := range dst.ids {
		if !src.mask.Has(id) {
			w.logStructural(OpAdd, e, int(id))
		}
	}
	for _, id := range src.ids {
		if !dst.mask.Has(id) {
			w.logStructural(OpRemove, e, int(id))
		}
	}
}

func (w *World) actorName(id uint16) string {
	w.actorsMu.Lock()
	defer w.actorsMu.Unlock()
	return w.actors[id]
}
