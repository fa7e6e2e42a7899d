package record

import (
	"reflect"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Stream is one stream of WorldFrames: a recording, or a client's
// `world` subscription. Every writer goes through it: capture on the game
// goroutine (memory copies, from the kernel's shape counters and change
// ticks), encode on another (conversion, XOR and byte planes, compression,
// keyframe choice).
type Stream struct {
	Cap     *ecs.Capturer
	Enc     *recording.WorldEncoder
	w       *ecs.World
	summary SummaryFunc
	journal uint64 // last journal entry captured
	// dead, when set, is the last state of the entities despawned after
	// the one numbered after, and the newest's number (graves.Yard.Since);
	// deadSeq, the newest a frame carried.
	dead    func(after uint64) ([]protocol.DeadEntity, uint64)
	deadSeq uint64
}

// CarryDead has each frame carry the last state of the entities despawned
// since the frame before (from the one numbered after on), as dead finds
// them (graves.Yard.Since).
func (s *Stream) CarryDead(dead func(after uint64) ([]protocol.DeadEntity, uint64), after uint64) {
	s.dead, s.deadSeq = dead, after
}

// SummaryFunc builds the world's summary with its resources converted by
// convert (the agent's, on the game goroutine).
type SummaryFunc func(convert func(reflect.Value) protocol.Value) *protocol.Summary

// NewStream starts a stream of w's frames whose summaries summary builds.
func NewStream(w *ecs.World, summary SummaryFunc) *Stream {
	s := &Stream{w: w, summary: summary, Cap: w.Inspect().NewCapturer(), Enc: recording.NewWorldEncoder()}
	if j := w.Inspect().Journal(); len(j) > 0 {
		s.journal = j[len(j)-1].Seq
	}
	return s
}

// Job is a capture on its way to the encoder.
type Job struct {
	tick    uint64
	cap     *ecs.Capture
	summary *protocol.Summary
	journal []protocol.JournalEntry
	events  []protocol.EventQueue
	dead    []protocol.DeadEntity
	shared  map[[2]int][]protocol.Value // {table, column}: values converted on the game goroutine
	bytes   int64                       // estimated, for the client's queue
	// resources holds, by the summary's resources, what the capture kept
	// of each: a copy converted on the encoder's goroutine, or a note
	// saying why it was not kept (values.Keep).
	resources []values.Kept
	// to is a world feed's listeners at the capture (Recorder.Audience).
	to any
	// skipped counts the frames an every-frame recorder did not capture
	// before this one, and skipWhy says why (WorldFrame.Skipped).
	skipped uint64
	skipWhy string
	// lean: the encoder coded keyframes only when it was taken
	// (WorldInput.Lean).
	lean bool
	// marks are the capture's write marks, when the stream keeps them
	// (the in-memory ring: marks.go).
	marks []tableMarks
	// budget bounds the values converted at capture (convert).
	budget *values.Budget
}

// Capture copies what the stream's next frame needs; call it in Sync.
func (s *Stream) Capture() *Job {
	lean := s.Enc.LeanNow() // before TakeKeyframe: see WorldInput.Lean
	full := s.Enc.TakeKeyframe()
	c := s.Cap.Capture(full)
	j := &Job{tick: s.w.Frame(), cap: c, lean: lean}
	if s.Cap.Marks {
		j.marks = marksOf(c)
	}
	j.summary = s.summary(func(v reflect.Value) protocol.Value {
		k := values.Keep(v)
		j.resources = append(j.resources, k)
		j.bytes += k.Bytes
		return protocol.Value{} // converted by Encode
	})
	if entries := s.w.Inspect().JournalSince(s.journal); len(entries) > 0 {
		s.journal = entries[len(entries)-1].Seq
		j.journal = values.Journal(entries)
	}
	if s.dead != nil {
		j.dead, s.deadSeq = s.dead(s.deadSeq)
	}
	for _, q := range s.w.Inspect().EventQueues(protocol.MaxRecordedEvents) {
		// The schema goes with the events, so a reader shows their handles
		// as 42v3, as live.
		eq := protocol.EventQueue{Name: q.Name, Previous: q.Previous, Current: q.Current, Total: q.Total}
		if len(q.Recent) > 0 {
			eq.Fields = values.FieldSchemas(q.Fields)
		}
		for _, r := range q.Recent {
			eq.Recent = append(eq.Recent, j.convert(r, ""))
		}
		j.events = append(j.events, eq)
	}
	// Values that share memory with the game (slices, maps, pointers) are
	// converted here, before the game changes them.
	for ti := range c.Tables {
		for ci := range c.Tables[ti].Columns {
			cc := &c.Tables[ti].Columns[ci]
			if cc.Values.IsValid() && values.HoldsPointers(cc.Values.Type().Elem()) {
				if j.shared == nil {
					j.shared = map[[2]int][]protocol.Value{}
				}
				j.shared[[2]int{ti, ci}] = j.convertAll(cc.Values, c.Tables[ti].Entities)
				cc.Values = reflect.Value{}
			}
			j.bytes += int64(len(cc.Raw)) + 8*int64(len(cc.Changed)+len(cc.Added))
		}
		j.bytes += 8 * int64(len(c.Tables[ti].Entities))
	}
	return j
}

// The values a capture converts on the game goroutine (events, columns
// whose values share memory with the game): at most maxValueValues for
// one value and maxCaptureValues for the capture, by identity across
// rows (values.Budget); past them a value is a note that names it.
const (
	maxValueValues   = 1 << 16
	maxCaptureValues = 1 << 18
)

// convert converts v, found at at, now, within the capture's share.
func (j *Job) convert(v reflect.Value, at string) protocol.Value {
	if j.budget == nil {
		j.budget = values.NewBudget(maxValueValues, maxCaptureValues)
	}
	return j.budget.Convert(v, at)
}

// convertAll converts each row of column v of a table whose rows are
// ents (nil: rows by number), now, within the capture's share.
func (j *Job) convertAll(v reflect.Value, ents []ecs.Entity) []protocol.Value {
	out := make([]protocol.Value, v.Len())
	deep := values.HoldsPointers(v.Type().Elem())
	for i := range out {
		at := ""
		if deep && i < len(ents) {
			at = values.Handle(ents[i]).String()
		}
		out[i] = j.convert(v.Index(i), at)
	}
	return out
}

// Encode turns a capture into a frame, off the game goroutine.
func (s *Stream) Encode(j *Job) (*protocol.WorldFrame, error) {
	for i, k := range j.resources {
		j.summary.Resources[i].Value = k.Value()
	}
	schemas := j.summary.Components
	in := &recording.WorldInput{Tick: j.tick, Full: j.cap.Full, Summary: j.summary, Journal: j.journal, Events: j.events, Dead: j.dead, LinksSet: j.cap.LinksChanged, Lean: j.lean}
	al := &j.cap.Alloc
	in.Alloc = &protocol.AllocFrame{Slots: al.Slots, Gens: al.Gens, Keep: al.Keep, Free: make([]protocol.EntityID, len(al.Free))}
	for i, e := range al.Free {
		in.Alloc.Free[i] = values.Handle(e)
	}
	for _, l := range j.cap.Links {
		cl := protocol.ChildList{Parent: values.Handle(l.Parent), Children: make([]protocol.EntityID, len(l.Children))}
		for i, k := range l.Children {
			cl.Children[i] = values.Handle(k)
		}
		in.Links = append(in.Links, cl)
	}
	in.Tables = make([]recording.TableChange, len(j.cap.Tables))
	for ti := range j.cap.Tables {
		tc, out := &j.cap.Tables[ti], &in.Tables[ti]
		*out = recording.TableChange{Archetype: tc.Archetype, Sparse: tc.Sparse, Len: tc.Len, All: tc.All,
			Components: make([]uint16, len(tc.Components)), Columns: make([]recording.ColumnChange, len(tc.Columns))}
		for i, id := range tc.Components {
			out.Components[i] = uint16(id)
		}
		if tc.Entities != nil { // the capture's memory: the encoder copies what it keeps
			out.Entities = values.Handles(tc.Entities)
		}
		for ci := range tc.Columns {
			cc, oc := &tc.Columns[ci], &out.Columns[ci]
			oc.Changed, oc.Added = cc.Changed, cc.Added
			id := tc.Components[ci]
			switch {
			case j.shared[[2]int{ti, ci}] != nil:
				oc.Kind, oc.Values = protocol.ColumnValues, j.shared[[2]int{ti, ci}]
			case cc.Values.IsValid():
				oc.Kind, oc.Values = protocol.ColumnValues, j.convertAll(cc.Values, tc.Entities)
			case cc.Size == 0 || values.RawTravels(schemas, uint16(id), cc.Size):
				oc.Kind, oc.Size, oc.Raw = protocol.ColumnRaw, cc.Size, cc.Raw
			default: // pointer-free, but not a layout readers decode (complex numbers, ...)
				oc.Kind, oc.Values = protocol.ColumnValues, s.rawToValues(id, cc.Raw, cc.Size)
			}
		}
	}
	f, err := s.Enc.Encode(in)
	s.Cap.Recycle(j.cap) // the encoder keeps copies: the capture's memory serves the next one
	if f != nil {
		f.Skipped, f.SkipWhy = j.skipped, j.skipWhy
	}
	return f, err
}

// rawToValues converts raw values of component id back to Go values and
// then to wire form.
func (s *Stream) rawToValues(id ecs.ComponentID, raw []byte, size int) []protocol.Value {
	typ := s.w.Inspect().Component(id).Type
	n := len(raw) / size
	out := make([]protocol.Value, n)
	for i := range n {
		out[i] = values.Whole(reflect.NewAt(typ, unsafe.Pointer(&raw[i*size])).Elem())
	}
	return out
}

// Capture is the job's copy of the world, as the kernel took it.
func (j *Job) Capture() *ecs.Capture { return j.cap }
