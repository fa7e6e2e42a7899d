package ecs

// JournalOp is the kind of structural change a journal entry records.
type JournalOp uint8

// Structural changes the journal records.
const (
	OpSpawn JournalOp = iota + 1
	OpDespawn
	OpAdd
	OpRemove
	// OpSet is a field set by path (SetField): what a person or tool did to
	// a value, journaled so a write from outside the game's systems shows.
	OpSet
)

var journalOpNames = [...]string{"", "spawn", "despawn", "add", "remove", "set"}

// String names the operation: "spawn", "despawn", "add", "remove" or "set".
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
	ring  []journalRec
	pos   int    // where the next entry goes
	wraps uint64 // times pos came back to 0: entries written = wraps*len(ring) + pos
	base  uint64 // the frame and actor of entries written now, packed as in meta
}

// on reports whether the journal records.
func (j *journal) on() bool { return len(j.ring) > 0 }

// written is how many entries the journal has taken since it was enabled.
func (j *journal) written() uint64 { return j.wraps*uint64(len(j.ring)) + uint64(j.pos) }

// journalRec is the entity and, packed in one word so that a record is
// two stores: the frame's low 32 bits, then the component id + 1 (9 bits),
// the op (7 bits) and the actor (16 bits).
type journalRec struct {
	e    Entity
	meta uint64
}

const compBits = 9 // holds MaxComponents ids and NoComponent

// The build fails here if MaxComponents outgrows compBits.
const _ = uint(1<<compBits - 1 - MaxComponents)

func packMeta(frame uint64, comp int, op JournalOp, actor uint16) uint64 {
	return uint64(uint32(frame)) | uint64(uint16(comp+1)|uint16(op)<<compBits)<<32 | uint64(actor)<<48
}

func (r *journalRec) frame() uint32 { return uint32(r.meta) }
func (r *journalRec) comp() int     { return int(r.meta>>32&(1<<compBits-1)) - 1 }
func (r *journalRec) op() JournalOp { return JournalOp(uint16(r.meta>>32) >> compBits) }
func (r *journalRec) actor() uint16 { return uint16(r.meta >> 48) }

// frameOf widens a record's 32-bit frame with the high bits of now.
func frameOf(low uint32, now uint64) uint64 { return now - uint64(uint32(now)-low) }

// add records an entry: two stores into the ring, the frame and actor
// already packed in base.
func (j *journal) add(e Entity, comp int, op JournalOp) {
	r := &j.ring[j.pos]
	r.e, r.meta = e, j.base|uint64(uint16(comp+1)|uint16(op)<<compBits)<<32
	if j.pos++; j.pos == len(j.ring) {
		j.pos, j.wraps = 0, j.wraps+1
	}
}

// syncJournal packs the frame and the acting system into the journal's
// base after either changes.
func (w *World) syncJournal() {
	if j := &w.journal; j.on() {
		j.base = packMeta(w.changeFrame(), -1, 0, w.actor) &^ (uint64(1<<16-1) << 32)
	}
}

// actorID interns a name for the journal's System field. Command buffers
// may be made from several goroutines: it locks.
func (w *World) actorID(name string) uint16 {
	w.actorsMu.Lock()
	defer w.actorsMu.Unlock()
	if w.actorIndex == nil {
		w.actorIndex = make(map[string]uint16, len(w.actors))
		for i, n := range w.actors {
			w.actorIndex[n] = uint16(i)
		}
	}
	if id, ok := w.actorIndex[name]; ok {
		return id
	}
	if len(w.actors) == 1<<16-1 {
		return 0
	}
	w.actors = append(w.actors, name)
	id := uint16(len(w.actors) - 1)
	w.actorIndex[name] = id
	return id
}

// inspectEnableJournal is [Inspection.EnableJournal].
func (w *World) inspectEnableJournal(capacity int) {
	if capacity <= 0 {
		w.journal = journal{}
		return
	}
	w.journal = journal{ring: make([]journalRec, capacity)}
	w.syncJournal()
}

// inspectJournal is [Inspection.Journal].
func (w *World) inspectJournal() []JournalEntry { return w.inspectJournalSince(0) }

// inspectJournalSince is [Inspection.JournalSince]: it reads only the
// entries after seq that the ring still holds.
func (w *World) inspectJournalSince(seq uint64) []JournalEntry {
	j := &w.journal
	if !j.on() {
		return nil
	}
	next := j.written()
	from := max(seq, next-min(next, uint64(len(j.ring))))
	if from >= next {
		return nil
	}
	out := make([]JournalEntry, 0, next-from)
	w.actorsMu.Lock()
	defer w.actorsMu.Unlock()
	for s := from; s < next; s++ {
		r := &j.ring[s%uint64(len(j.ring))]
		out = append(out, JournalEntry{Seq: s + 1, Frame: frameOf(r.frame(), w.frame+1), Op: r.op(), Entity: r.e, Component: r.comp(), System: w.actors[r.actor()]})
	}
	return out
}

// logStructural records a change if the journal is on.
func (w *World) logStructural(op JournalOp, e Entity, comp int) {
	if j := &w.journal; j.on() {
		j.add(e, comp, op)
	}
}

// logMove records the components a table move added and removed.
func (w *World) logMove(e Entity, src, dst *table) {
	if !w.journal.on() {
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

// inspectActAs is [Inspection.ActAs].
func (w *World) inspectActAs(actor string, f func()) {
	wasTool := w.tool
	w.tool = true
	defer func() { w.tool = wasTool; w.syncJournal() }()
	defer w.actingAs(w.actorID(actor), false).end()
	f()
}

// actingAs makes actor the author of what follows, in the journal and the
// writer log (commands: it applies actor's command buffer), until the
// end of what it returns.
func (w *World) actingAs(actor uint16, commands bool) acting {
	a := acting{w: w, prev: w.actor, actor: actor, commands: commands}
	w.actor = actor
	w.syncJournal()
	a.from = w.openWrites()
	return a
}

// acting is an actingAs under way, until its end: a value, so a deferred
// end allocates nothing (a command buffer's apply runs once per system).
type acting struct {
	w           *World
	prev, actor uint16
	from        uint32
	commands    bool
}

// end closes the actor's writes and gives the world back to who acted
// before.
func (a acting) end() {
	a.w.closeWrites(a.from, a.actor, a.commands)
	a.w.actor = a.prev
	a.w.syncJournal()
}
