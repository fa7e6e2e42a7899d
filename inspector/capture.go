package inspector

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// subscription is one client's standing request, owned by the game goroutine.
type subscription struct {
	req     protocol.Subscribe
	period  time.Duration
	next    time.Time
	reset   bool // the next frame goes out full
	query   *compiledQuery
	since   uint32   // change tick of the previous capture
	journal uint64   // last journal entry sent
	feed    *feedSub // a world subscription's place on its feed
	series  *seriesQuery
}

// heavy reports whether the subscription's frames copy many rows: they
// share the Sync's capture budget.
func (s *subscription) heavy() bool {
	switch s.req.What {
	case protocol.SubPage:
		return true
	case protocol.SubSeries:
		return s.series.spec.Aggregate != ""
	}
	return false
}

func (a *Agent) subscribe(c *client, m *protocol.Subscribe) error {
	hz := m.Hz // finite and >= 0: checked at the door
	if hz <= 0 {
		hz = a.opts.DefaultHz
	}
	hz = min(hz, a.opts.MaxHz)
	s := &subscription{req: *m, period: time.Duration(float64(time.Second) / hz), reset: true, since: a.w.Inspect().NextChangeTick()}
	switch m.What {
	case protocol.SubWorld:
		rate := 0.0 // every frame the agent sees
		if m.Hz > 0 {
			rate = hz
		}
		feed, err := a.joinFeed(c, m.ID, rate)
		if err != nil {
			return err
		}
		s.feed = feed
	case protocol.SubSummary, protocol.SubEvents:
	case protocol.SubJournal:
		if old, ok := c.subs[m.ID]; ok {
			s.journal = old.journal
		}
	case protocol.SubEntity:
		if m.Entity == 0 {
			return fmt.Errorf("an entity subscription needs an entity")
		}
	case protocol.SubPage:
		if m.Archetype == 0 {
			q, err := compileQuery(a.w, a.componentSchemas(), m.Query, m.Sort, 0)
			if err != nil {
				return err
			}
			if a.needsCopy(q) {
				if err := a.checkCopy(q); err != nil {
					return err
				}
			}
			s.query = q
		}
	case protocol.SubSeries:
		sq, err := a.compileSeries(m.Query)
		if err != nil {
			return err
		}
		s.series = sq
	default:
		return fmt.Errorf("cannot subscribe to %q: want summary, page, entity, events, journal, world or series", m.What)
	}
	a.unsubscribe(c, m.ID)
	c.subs[m.ID] = s
	return nil
}

// unsubscribe ends client c's subscription id, if it has one.
func (a *Agent) unsubscribe(c *client, id uint32) {
	if old, ok := c.subs[id]; ok && old.feed != nil {
		a.leaveFeed(old.feed)
	}
	delete(c.subs, id)
}

// captureBudget bounds the time one Sync spends building subscription
// frames for all clients together. Each client has an equal share of it
// and at least one frame a Sync; subscriptions past its share stay due and
// go next frame, so a client with many subscriptions can neither hold the
// game nor starve the others.
const captureBudget = 2 * time.Millisecond

// capture sends a frame to every subscription that is due, within the
// budget.
func (a *Agent) capture(now time.Time) {
	var summary *protocol.Summary                    // built once per Sync, shared by readers
	journals := map[uint64][]protocol.JournalEntry{} // entries after a sequence number, converted once per Sync
	start := time.Now()
	share := captureBudget / time.Duration(max(len(a.live), 1))
	for c := range a.live { // a map: the clients come in another order each Sync
		mine, built := time.Now(), 0
		for id, s := range c.subs {
			if now.Before(s.next) || s.feed != nil { // world subscriptions: their feeds send
				continue
			}
			if built > 0 && time.Since(mine) > share {
				break // due still: next Sync
			}
			if s.heavy() && (time.Since(start) > captureBudget || c.busyHeavy()) {
				continue // due still: next Sync
			}
			if !s.reset && c.pending(id) {
				// The client has not taken the last frame: skip the copy
				// that would only replace it.
				s.next = now.Add(s.period)
				a.tel.coalesced.Add(1)
				continue
			}
			s.next = now.Add(s.period)
			if s.next.Before(now) {
				s.next = now
			}
			var m protocol.Message
			var f outFrame
			switch s.req.What {
			case protocol.SubSummary:
				if summary == nil {
					summary = a.summary()
				}
				sum := *summary
				sum.Sub = id
				m = &sum
			case protocol.SubPage:
				f = a.subscribedPage(id, s)
			case protocol.SubEntity:
				m = a.detail(id, ecsEntity(s.req.Entity))
			case protocol.SubSeries:
				f = a.seriesFrame(id, s)
			case protocol.SubEvents:
				m = a.events(id, s.req.Sample)
			case protocol.SubJournal:
				if c.backlog() > a.lagBytes() {
					// A slow reader: its entries wait in the world's
					// journal (a ring) and go once it has taken what
					// waits; older ones than the ring holds are lost, as
					// the gap in seq says.
					continue
				}
				j := a.journal(id, s, journals)
				built++
				if len(j.Entries) == 0 && !s.reset {
					continue
				}
				c.notify(j) // journal entries arrive in order, never coalesced
				s.reset = false
				continue
			}
			if m != nil {
				f = outFrame{msg: m, size: estimateSize(m)}
			}
			f.reset = s.reset
			c.frame(id, f)
			s.reset = false
			built++
		}
	}
}

// nextDue is how long until a subscription is due, for a paused Sync.
func (a *Agent) nextDue(now time.Time) time.Duration {
	wait := time.Second
	if len(a.feeds) > 0 {
		wait = pausedPeriod
	}
	for c := range a.live {
		for _, s := range c.subs {
			if s.feed == nil {
				wait = min(wait, s.next.Sub(now))
			}
		}
	}
	return max(wait, time.Millisecond)
}

func (a *Agent) componentSchemas() []protocol.Component {
	comps := a.w.Inspect().Components()
	for i := len(a.schemas); i < len(comps); i++ {
		a.schemas = append(a.schemas, schemaOf(comps[i]))
	}
	return a.schemas
}

// summary captures the world's summary: O(archetypes + systems + queues).
func (a *Agent) summary() *protocol.Summary { return a.summaryOf(toValue) }

// summaryWhole is the summary with resources whole, for recordings.
func (a *Agent) summaryWhole() *protocol.Summary { return a.summaryOf(wholeValue) }

func (a *Agent) summaryOf(convert func(reflect.Value) protocol.Value) *protocol.Summary {
	w := a.w
	st := w.Inspect().Stats()
	s := &protocol.Summary{
		Tick: a.tick(), Full: true, Halt: a.mid, FrameNs: a.frameNs, Entities: w.Len(), Paused: a.paused,
		Stats:      protocol.Stats{Alive: st.Alive, Free: st.Free, Retired: st.Retired, Slots: st.Slots, Reserved: st.Reserved},
		Components: a.componentSchemas(),
	}
	for _, ar := range w.Inspect().Archetypes() {
		ids := make([]uint16, len(ar.Components))
		for i, id := range ar.Components {
			ids[i] = uint16(id)
		}
		s.Archetypes = append(s.Archetypes, protocol.Archetype{ID: ar.ID, Components: ids, Len: ar.Len, Cap: ar.Cap, Bytes: ar.Bytes})
	}
	if a.opts.Schedule != nil {
		for _, si := range a.opts.Schedule.Systems() {
			sys := protocol.System{Name: si.Name, Stage: si.Stage, Reads: si.Reads, Writes: si.Writes,
				Last: si.Last.Nanoseconds(), Mean: si.Mean.Nanoseconds(), Max: si.Max.Nanoseconds(), Count: si.Count}
			for _, d := range si.Recent {
				sys.Recent = append(sys.Recent, d.Nanoseconds())
			}
			s.Systems = append(s.Systems, sys)
		}
	}
	for _, q := range w.Inspect().EventQueues(0) {
		s.Events = append(s.Events, protocol.EventQueue{Name: q.Name, Previous: q.Previous, Current: q.Current, Total: q.Total})
	}
	for _, r := range w.Inspect().Resources() {
		fs, ok := a.resFields[r.Name]
		if !ok {
			if a.resFields == nil {
				a.resFields = map[string][]protocol.FieldSchema{}
			}
			fs = fieldSchemas(r.Fields)
			a.resFields[r.Name] = fs
		}
		s.Resources = append(s.Resources, protocol.Resource{Name: r.Short, Value: convert(r.Value), Fields: fs})
	}
	// The most reused slots: the world keeps them as it frees slots. A new
	// list when they changed: summaries already handed out (to writers, to
	// recorders, as a delta's base) keep theirs.
	most := w.Inspect().MostRecycled(ecs.MaxRecycledKept)
	if !sameSlots(a.recycled, most) {
		a.recycled = make([]protocol.Slot, 0, len(most))
		for _, sl := range most {
			a.recycled = append(a.recycled, protocol.Slot{Index: sl.Index, Generation: sl.Generation, Alive: sl.Alive})
		}
	}
	s.Recycled = a.recycled
	s.Watches = a.watchList()
	s.Stale = staleAudit(w.Inspect().StaleUses())
	rec, _ := a.tel.recording.Load().(string)
	s.Agent = protocol.Telemetry{
		Clients: int(a.tel.clients.Load()), BytesSent: a.tel.bytesSent.Load(), FramesSent: a.tel.framesSent.Load(),
		Coalesced: a.tel.coalesced.Load(), Dropped: a.tel.dropped.Load(), DroppedBy: a.tel.dropCounts(), TooLarge: a.tel.tooLarge.Load(), Snapshots: a.tel.snapshots.Load(), SyncNs: a.tel.syncNs.Load(), Recording: rec,
	}
	if a.ringMem != nil {
		s.Agent.Rewind = a.ringMem.describe()
	}
	return s
}

// subscribedPage captures a page subscription's window: the copy now, the
// conversion (and, for a query with many field tests, the tests) on the
// client's writer goroutine.
func (a *Agent) subscribedPage(id uint32, s *subscription) outFrame {
	limit := pageLimit(s.req.Limit)
	if s.req.Archetype > 0 {
		arch := uint32(s.req.Archetype - 1)
		ents, total := a.w.Inspect().ArchetypeEntities(arch, s.req.Offset, limit)
		var cols []ecs.ComponentID
		for _, ar := range a.w.Inspect().Archetypes() {
			if ar.ID == arch {
				cols = ar.Components
			}
		}
		pc := a.capturePage(id, ents, total, s.req.Offset, cols, a.w.Inspect().CopyRows(ents, cols))
		return outFrame{build: func() protocol.Message { return pc.build() }, size: pc.size()}
	}
	s.query.filter.Since = s.since
	defer func() { s.since = a.w.Inspect().NextChangeTick() }()
	if a.needsCopy(s.query) {
		qc, err := a.copyQuery(id, s.query, s.req.Offset, limit)
		if err == nil {
			return outFrame{build: func() protocol.Message { return qc.build() }, size: qc.size(), heavy: true}
		}
		// The world grew past what the query may copy since it was
		// subscribed: say so where the client looks for the answer.
		return outFrame{msg: &protocol.Reply{ID: id, Code: codeOf(err), Message: err.Error()}, size: 256}
	}
	pc := a.page(id, s.query, s.req.Offset, limit)
	return outFrame{build: func() protocol.Message { return pc.build() }, size: pc.size()}
}

// page captures the window [offset, offset+limit) of a query's matches,
// testing fields on the game goroutine (see needsCopy for when not).
func (a *Agent) page(id uint32, q *compiledQuery, offset, limit int) *pageCapture {
	ents, total, values := a.w.Inspect().CopyWindow(q.filter, offset, limit, q.columns)
	return a.capturePage(id, ents, total, offset, q.columns, values)
}

// detail captures one entity.
func (a *Agent) detail(id uint32, e ecs.Entity) *protocol.Detail {
	d := &protocol.Detail{Sub: id, Tick: a.tick(), Entity: wireEntity(e)}
	arch, row, ok := a.w.Inspect().Location(e)
	if !ok {
		d.Reason = strings.TrimPrefix(deadReason(a.w, e), "ecs: ") + a.despawnNote(e)
		return d
	}
	d.Alive, d.Archetype, d.Row = true, arch, row
	if p, ok := a.w.Parent(e); ok {
		d.Parent = wireEntity(p)
	}
	for _, k := range a.w.Children(e) {
		d.Children = append(d.Children, wireEntity(k))
	}
	for _, cid := range a.w.Inspect().ComponentsOf(e) {
		v, _ := a.w.Inspect().Value(e, cid)
		cv := protocol.ComponentValue{Component: a.w.Inspect().Component(cid).Short, Value: toValue(v)}
		if wr, ad, ok := a.w.Inspect().LastWrite(e, cid); ok {
			cv.Written, cv.Added = provenance(wr), provenance(ad)
		}
		if a.restore.holds(a.w, e, cid) { // as the rewind put it: not the client's write
			at := a.restore.at
			cv.Restored, cv.Written, cv.Added = &at, nil, nil
		}
		if seen := a.seenWriter(e, cid); seen != nil {
			cv.Written = seen
		}
		d.Components = append(d.Components, cv)
	}
	return d
}

// staleAudit is the kernel's stale-handle audit on the wire: the top 8
// users and the newest 8 uses; nil before the first use.
func staleAudit(r ecs.StaleReport) *protocol.StaleAudit {
	if r.Total == 0 {
		return nil
	}
	out := &protocol.StaleAudit{Total: r.Total}
	for _, c := range r.By[:min(len(r.By), 8)] {
		out.By = append(out.By, protocol.StaleCount{By: c.By, Count: c.Count})
	}
	for _, u := range r.Recent[max(len(r.Recent)-8, 0):] {
		out.Recent = append(out.Recent, protocol.StaleUse{Entity: wireEntity(u.Handle), Generation: u.Generation, By: u.By, Tick: u.Frame})
	}
	return out
}

// provenance is the kernel's provenance on the wire, nil when unknown.
func provenance(p ecs.Provenance) *protocol.Provenance {
	if !p.Known {
		return nil
	}
	return &protocol.Provenance{Tick: p.Frame, By: p.By}
}

// despawnNote says who despawned the entity e named, and when, if the
// journal still holds it: "; despawned at tick 812 by hunting (commands)".
func (a *Agent) despawnNote(e ecs.Entity) string {
	for _, j := range slices.Backward(a.w.Inspect().Journal()) {
		if j.Entity == e && j.Op == ecs.OpDespawn {
			return fmt.Sprintf("; despawned at tick %d by %s", j.Frame, j.System)
		}
	}
	return ""
}

// deadReason says why e is not alive, in the kernel's words.
func deadReason(w *ecs.World, e ecs.Entity) string {
	if err := w.CheckAlive(e); err != nil {
		return err.Error()
	}
	return "entity " + e.String() + " is alive"
}

func (a *Agent) events(id uint32, sample int) *protocol.Events {
	if sample <= 0 {
		sample = 8
	}
	ev := &protocol.Events{Sub: id, Tick: a.tick()}
	for _, q := range a.w.Inspect().EventQueues(sample) {
		eq := protocol.EventQueue{Name: q.Name, Previous: q.Previous, Current: q.Current, Total: q.Total, Fields: fieldSchemas(q.Fields)}
		for _, r := range q.Recent {
			eq.Recent = append(eq.Recent, toValue(r))
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
		folded = foldJournal(a.w.Inspect().JournalSince(s.journal))
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

// foldJournal converts kernel entries to wire entries, folding the adds
// that follow a spawn (same entity, frame and actor) into the spawn's
// entry: one entry per new entity, with its components.
func foldJournal(entries []ecs.JournalEntry) []protocol.JournalEntry {
	out := make([]protocol.JournalEntry, 0, len(entries))
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		je := protocol.JournalEntry{Seq: e.Seq, Frame: e.Frame, Op: e.Op.String(), Entity: wireEntity(e.Entity), Component: e.Component, System: e.System}
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

// sparseCopy is one sparse component's entities and values.
type sparseCopy struct {
	id   ecs.ComponentID
	ents []ecs.Entity
	vals reflect.Value
}

// copyWorld copies every table and sparse set: the game goroutine's share of
// a snapshot, at memory speed.
func (a *Agent) copyWorld() ([]ecs.TableCopy, []sparseCopy) {
	tables := a.w.Inspect().CopyTables()
	var sparse []sparseCopy
	for _, c := range a.w.Inspect().Components() {
		if c.Storage == ecs.SparseStorage {
			ents, vals := a.w.Inspect().CopySparse(c.ID)
			if len(ents) > 0 {
				sparse = append(sparse, sparseCopy{id: c.ID, ents: ents, vals: vals})
			}
		}
	}
	return tables, sparse
}

// buildSnapshot turns copies into a Snapshot message, off the game goroutine.
// Each sparse component becomes a table of its own.
func buildSnapshot(tables []ecs.TableCopy, sparse []sparseCopy, tick uint64, game string, st ecs.EntityStats, schemas []protocol.Component) *protocol.Snapshot {
	s := &protocol.Snapshot{Tick: tick, Game: game, Components: schemas,
		Stats: protocol.Stats{Alive: st.Alive, Free: st.Free, Retired: st.Retired, Slots: st.Slots, Reserved: st.Reserved}}
	for _, t := range tables {
		pt := protocol.Table{Components: make([]uint16, len(t.Components)), Entities: make([]protocol.EntityID, len(t.Entities))}
		for i, c := range t.Components {
			pt.Components[i] = uint16(c)
		}
		for i, e := range t.Entities {
			pt.Entities[i] = wireEntity(e)
		}
		for _, col := range t.Columns {
			vals := make([]protocol.Value, col.Len())
			for i := range vals {
				vals[i] = wholeValue(col.Index(i))
			}
			pt.Columns = append(pt.Columns, vals)
		}
		s.Tables = append(s.Tables, pt)
	}
	for _, sp := range sparse {
		pt := protocol.Table{Components: []uint16{uint16(sp.id)}, Entities: make([]protocol.EntityID, len(sp.ents))}
		vals := make([]protocol.Value, len(sp.ents))
		for i, e := range sp.ents {
			pt.Entities[i] = wireEntity(e)
			vals[i] = wholeValue(sp.vals.Index(i))
		}
		pt.Columns = [][]protocol.Value{vals}
		s.Sparse = append(s.Sparse, pt)
	}
	return s
}

// sameSlots reports whether the summary's list says what the world's does.
func sameSlots(have []protocol.Slot, now []ecs.SlotInfo) bool {
	if len(have) != len(now) {
		return false
	}
	for i := range now {
		if have[i].Index != now[i].Index || have[i].Generation != now[i].Generation || have[i].Alive != now[i].Alive {
			return false
		}
	}
	return true
}
