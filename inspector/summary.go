package inspector

import (
	"reflect"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The world's summary: archetypes, systems, queues, resources, the
// stale-handle audit, the agent's telemetry.

func (a *Agent) componentSchemas() []protocol.Component {
	comps := a.w.Inspect().Components()
	for i := len(a.schemas); i < len(comps); i++ {
		a.schemas = append(a.schemas, values.Schema(comps[i]))
	}
	return a.schemas
}

// summary captures the world's summary: O(archetypes + systems + queues).
func (a *Agent) summary() *protocol.Summary { return a.summaryOf(values.Of) }

func (a *Agent) summaryOf(convert func(reflect.Value) protocol.Value) *protocol.Summary {
	w := a.w
	st := w.Inspect().Stats()
	s := &protocol.Summary{
		Tick: a.tick(), Full: true, Halt: a.mid, FrameNs: a.frameNs, WorkNs: a.workNs, Entities: w.Len(), Paused: a.paused,
		Stats:      protocol.Stats{Alive: st.Alive, Free: st.Free, Retired: st.Retired, Slots: st.Slots, Reserved: st.Reserved},
		Components: a.componentSchemas(),
	}
	for _, ar := range w.Inspect().Archetypes() {
		ids := make([]uint16, len(ar.Components))
		for i, id := range ar.Components {
			ids[i] = uint16(id)
		}
		pa := protocol.Archetype{ID: ar.ID, Components: ids, Len: ar.Len, Cap: ar.Cap, Bytes: ar.Bytes}
		for _, t := range ar.Targets {
			pa.Targets = append(pa.Targets, protocol.ArchetypeTarget{Kind: uint16(t.Kind), Target: values.Handle(t.Target)})
		}
		s.Archetypes = append(s.Archetypes, pa)
	}
	if a.opts.Schedule != nil {
		for _, si := range a.opts.Schedule.Systems() {
			sys := protocol.System{Name: si.Name, Stage: si.Stage, Reads: si.Reads, Writes: si.Writes,
				Last: si.Last.Nanoseconds(), Mean: si.Mean.Nanoseconds(), Max: si.Max.Nanoseconds(), Count: si.Count}
			for _, d := range si.Recent {
				sys.Recent = append(sys.Recent, d.Nanoseconds())
			}
			sys.Skipped = si.Skipped
			sys.AllocBytes, sys.AllocObjects, sys.AllocRuns, sys.AllocShared = si.AllocBytes, si.AllocObjects, si.AllocRuns, si.AllocShared
			for _, r := range si.SkippedWhy {
				sys.SkippedWhy = append(sys.SkippedWhy, protocol.SkipReason{Tick: r.Frame, Why: r.Why})
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
			fs = values.FieldSchemas(r.Fields)
			a.resFields[r.Name] = fs
		}
		s.Resources = append(s.Resources, protocol.Resource{Name: r.Short, Value: convert(r.Value), Fields: fs, Type: resourceType(r.Value)})
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
	s.Watches = a.watches.List()
	s.Stale = staleAudit(w.Inspect().StaleUses())
	if a.dangling != nil {
		s.Dangling = a.dangling.Audit()
	}
	if fr := a.framesForSummary(); fr != nil {
		s.Frames = fr
	}
	s.Agent = a.Telemetry()
	return s
}

// Telemetry is what the agent reports of itself in the summary: its
// clients, what it sent and dropped, its time on the game goroutine, and
// the memory its in-memory recording holds. Call it where Sync is called,
// on the game goroutine.
func (a *Agent) Telemetry() protocol.Telemetry {
	rec, _ := a.tel.recording.Load().(string)
	n := a.srv.Counts()
	t := protocol.Telemetry{
		Clients: n.Clients, BytesSent: n.BytesSent, FramesSent: n.FramesSent, Coalesced: n.Coalesced, Dropped: n.Dropped, DroppedBy: n.DroppedBy,
		TooLarge: n.TooLarge, Snapshots: a.tel.snapshots.Load(), SyncNs: a.tel.syncNs.Load(), Recording: rec,
	}
	t.DeadMissed = a.graves.Missed
	t.GC = gcStats()
	if a.dangling != nil {
		t.HandlePasses, t.HandlesRead, t.HandlesCut = a.dangling.Passes()
		t.HandlePassMs = float64(a.dangling.PassTook().Microseconds()) / 1000
	}
	if a.broker != nil {
		t.Broker = a.broker.State()
	}
	switch {
	case a.ringMem != nil:
		t.Rewind = a.ringMem.Describe()
		if a.ring != nil {
			t.Rewind.Copy = a.ring.Stream.Enc.StateBytes()
		}
	case a.ringOff != "":
		t.Rewind = &protocol.RewindRange{Limit: a.opts.RewindBytes, Window: a.opts.RewindWindow.Seconds(), Short: a.ringOff}
	}
	return t
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
		out.Recent = append(out.Recent, protocol.StaleUse{Entity: values.Handle(u.Handle), Generation: u.Generation, By: u.By, Tick: u.Frame})
	}
	return out
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
