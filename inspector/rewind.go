package inspector

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Rewind: the agent records the last moments of the run into a ring in
// memory (ring.go) and, on a client's Rewind, rebuilds the recorded tick
// off the game goroutine (the frames from its keyframe, then an ecs.Image
// of them) and restores it on the game goroutine, where the game then
// stays paused.

// startRing starts the in-memory recording, going on from seed (the frames
// kept from before a rewind).
func (a *Agent) startRing(seed []ringFrame, bytes int64) {
	mem := &memRing{limit: a.opts.RewindBytes, window: a.opts.RewindWindow, frames: seed, bytes: bytes}
	r := a.newRecorder(mem, a.opts.RewindHz, a.srv.Closed()) // the ring ends with the agent
	r.stream.cap.Marks = true                                // who wrote what a rewind restores: rewindmarks.go
	r.stream.enc.Lean = true                                 // in memory: no copy where deltas do not pay
	if a.opts.rewindPaced {
		r.share = ringShare
	}
	mem.mu.Lock()
	mem.want = r.stream.enc.RequestKeyframe
	mem.mu.Unlock()
	r.begin()
	a.ring, a.ringMem = r, mem
}

// ringShare is the most of the game's time the in-memory recording's
// copies may take at the default rate: a world whose copy takes longer
// than this share of the recording's period is recorded less often (a
// million-entity world's copy of about 100 ms: a frame every 10 s, not
// every second).
const ringShare = 0.01

// rewindTypes is what rebuilding a world from frames needs to know of the
// world's types, taken on the game goroutine.
type rewindTypes struct {
	comps  []ecs.ComponentInfo
	events map[string]reflect.Type // by name; nil where two share one
}

func (a *Agent) rewindTypes() *rewindTypes {
	rt := &rewindTypes{comps: a.w.Inspect().Components(), events: map[string]reflect.Type{}}
	for _, q := range a.w.Inspect().EventQueues(0) {
		if _, twice := rt.events[q.Name]; twice {
			rt.events[q.Name] = nil
			continue
		}
		rt.events[q.Name] = q.Type
	}
	return rt
}

// rewind starts a client's Rewind: the frames are rebuilt on another
// goroutine, and the restore waits for a later Sync.
func (a *Agent) rewind(c *peer, id uint32, tick uint64, exact bool) {
	fail := func(code, msg string) { c.Answer(&protocol.Reply{ID: id, Code: code, Message: msg}) }
	switch {
	case a.ringMem == nil:
		fail(protocol.ErrState, "this agent keeps no in-memory recording to rewind from (Options.RewindBytes)")
		return
	case a.rewinding:
		fail(protocol.ErrState, "a rewind is under way")
		return
	}
	if now := a.w.Frame(); tick > now {
		fail(protocol.ErrNotFound, fmt.Sprintf("tick %d is after the game's tick %d", tick, now))
		return
	}
	frames, err := a.ringMem.span(tick)
	if err != nil {
		fail(protocol.ErrNotFound, err.Error())
		return
	}
	types := a.rewindTypes()
	a.rewinding = true
	go func() {
		started := time.Now()
		rb, err := rebuild(frames, types)
		done := func() { a.finishRewind(c, id, tick, exact, rb, err, started) }
		select {
		case a.calls <- done:
			a.srv.WakeGame()
		case <-a.srv.Closed():
		}
	}()
}

// rebuilt is a recorded tick made ready to restore: the image, and the
// resources as recorded (converted on the game goroutine, over the values
// the game holds, so fields a recording lacks keep theirs).
type rebuilt struct {
	img       *ecs.Image
	resources []protocol.Resource
	notes     []string
	marks     restoredMarks // who wrote each restored row
}

// finishRewind restores the rebuilt tick, on the game goroutine; exact
// runs the game on from there to the tick asked for.
func (a *Agent) finishRewind(c *peer, id uint32, asked uint64, exact bool, rb *rebuilt, err error, started time.Time) {
	a.rewinding = false
	if err == nil {
		err = a.resourcesInto(rb)
	}
	from := a.w.Inspect().NextStamp()
	if err == nil {
		a.w.Inspect().ActAs(c.Actor(), func() { err = a.w.Restore(rb.img) })
	}
	if err != nil {
		c.Answer(&protocol.Reply{ID: id, Code: protocol.ErrBadValue, Message: "rewind: " + trimPkg(err) + ": the world is unchanged"})
		return
	}
	tick := rb.img.Frame
	a.paused, a.stepLeft = true, 0
	a.afterRestore()
	a.rewound(tick)
	a.restore = restoreMark{from: from, to: a.w.Inspect().NextStamp(), at: protocol.Provenance{Tick: tick, By: c.Actor()}, marks: rb.marks}
	seed, bytes := a.ringMem.before(tick)
	a.ring.end("the game was rewound")
	a.startRing(seed, bytes)
	for _, r := range slices.Clone(a.recorders) {
		r.end("the game was rewound")
		a.logf("a recording ended: the game was rewound to tick %d, and a file's ticks do not go backwards", tick)
	}
	for _, f := range a.feeds { // world streams go on from a keyframe of the rewound world
		f.rec.Keyframe()
	}
	msg := fmt.Sprintf("rewound to tick %d", tick)
	if tick != asked {
		msg += fmt.Sprintf(" (the newest recorded at or before %d)", asked)
	}
	msg += fmt.Sprintf(": %d entities", a.w.Len())
	if exact && tick < asked {
		a.paused, a.stepLeft = false, int(asked-tick)
		msg += fmt.Sprintf(", replaying %d frames to tick %d, then paused", asked-tick, asked)
	} else {
		msg += ", paused"
	}
	msg += fmt.Sprintf(" (%v)", time.Since(started).Round(time.Millisecond))
	for _, n := range rb.notes {
		msg += "; " + n
	}
	c.Answer(&protocol.Reply{ID: id, OK: true, Message: msg})
	a.capture(time.Now()) // every client sees the rewound world at once
}

// afterRestore starts the watchpoints' bookkeeping afresh: the restore
// wrote every value, which is not a write a watchpoint looks for, and an
// entity that fired one before the rewind may fire it again after.
func (a *Agent) afterRestore() {
	ws := &a.watches
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.since = a.w.Inspect().NextStamp()
	ws.seq = max(ws.seq, a.journalHead())
	for _, wp := range ws.list {
		clear(wp.fired)
		wp.order = wp.order[:0]
		clear(wp.last)
	}
}

// resourcesInto converts the recorded resources over copies of the
// game's (the fields a recording holds are the exported ones).
func (a *Agent) resourcesInto(rb *rebuilt) error {
	byName := map[string][]ecs.ResourceInfo{}
	for _, r := range a.w.Inspect().Resources() {
		byName[r.Short] = append(byName[r.Short], r)
	}
	rb.img.Resources = map[reflect.Type]reflect.Value{}
	for _, rec := range rb.resources {
		now := byName[rec.Name]
		if len(now) != 1 {
			rb.notes = append(rb.notes, fmt.Sprintf("resource %s kept as it is (the game has %d by that name)", rec.Name, len(now)))
			continue
		}
		v := reflect.New(now[0].Value.Type()).Elem()
		v.Set(now[0].Value)
		if err := ecs.RestoreValue(v, rec.Value.Interface()); err != nil {
			return fmt.Errorf("resource %s: %w", rec.Name, err)
		}
		rb.img.Resources[v.Type()] = v
	}
	return nil
}

// rebuild replays frames (a keyframe and the deltas after it) and turns
// the tick they reach into an image of the world.
func rebuild(frames []ringFrame, types *rewindTypes) (*rebuilt, error) {
	st := recording.NewWorldState()
	marks := restoredMarks{}
	for i, fr := range frames {
		apply := st.Pass // the frames on the way: the last one's events count
		if i == len(frames)-1 {
			apply = st.Apply
		}
		if err := apply(fr.f); err != nil {
			return nil, err
		}
		if fr.marks == nil {
			marks = nil // a frame without marks: who wrote its rows is not known
		}
		if marks != nil {
			marks.follow(st, fr.marks)
		}
	}
	if !st.Alloc.Known {
		return nil, errors.New("the recording does not hold the entity allocator")
	}
	al := &st.Alloc
	img := &ecs.Image{Frame: st.Tick, Slots: make([]uint32, al.Slots), Events: map[reflect.Type]ecs.ImageEvents{}}
	copy(img.Slots, al.Gens)
	for i := len(al.Gens); i < al.Slots; i++ {
		img.Slots[i] = 1 // a slot made after the keyframe: alive or free below, or never retired
	}
	for _, e := range al.Free {
		img.Slots[e.Index()] = e.Generation()
		img.Free = append(img.Free, e.Index())
	}
	keys := make([]uint64, 0, len(st.Tables))
	for k := range st.Tables {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t := st.Tables[k]
		it, err := imageTable(t, types, img.Slots)
		if err != nil {
			return nil, err
		}
		if t.Sparse {
			img.Sparse = append(img.Sparse, it)
		} else {
			img.Tables = append(img.Tables, it)
		}
	}
	for _, l := range st.Links {
		cl := ecs.ChildLinks{Parent: values.Entity(l.Parent), Children: make([]ecs.Entity, len(l.Children))}
		for i, kid := range l.Children {
			cl.Children[i] = values.Entity(kid)
		}
		img.Links = append(img.Links, cl)
	}
	rb := &rebuilt{img: img, resources: st.Summary.Resources, marks: marks}
	for _, q := range st.Events {
		typ := types.events[q.Name]
		if typ == nil {
			rb.notes = append(rb.notes, fmt.Sprintf("events %s kept as they are", q.Name))
			continue
		}
		ev, note, err := imageEvents(typ, q)
		if err != nil {
			return nil, fmt.Errorf("events %s: %w", q.Name, err)
		}
		if note != "" {
			rb.notes = append(rb.notes, note)
		}
		img.Events[typ] = ev
	}
	return rb, nil
}

// imageTable turns a recorded table into an image's: its entities (whose
// generations it writes into slots) and a slice per column.
func imageTable(t *recording.StateTable, types *rewindTypes, slots []uint32) (ecs.ImageTable, error) {
	it := ecs.ImageTable{Entities: make([]ecs.Entity, len(t.Entities))}
	for i, e := range t.Entities {
		if int(e.Index()) >= len(slots) {
			return it, fmt.Errorf("entity %v is past the recorded slots", e)
		}
		it.Entities[i] = values.Entity(e)
		slots[e.Index()] = e.Generation()
	}
	for j, id := range t.Components {
		if int(id) >= len(types.comps) || types.comps[id].Type == nil {
			return it, fmt.Errorf("component %d is not registered", id)
		}
		info := &types.comps[id]
		col, err := columnOf(info, &t.Columns[j], len(t.Entities))
		if err != nil {
			return it, fmt.Errorf("component %s: %w", info.Short, err)
		}
		it.Components = append(it.Components, ecs.ComponentID(id))
		it.Columns = append(it.Columns, col)
	}
	return it, nil
}

// columnOf turns a recorded column into a slice of the component's type:
// raw memory is copied as it is; values are converted one by one.
func columnOf(info *ecs.ComponentInfo, c *recording.StateColumn, n int) (reflect.Value, error) {
	out := reflect.MakeSlice(reflect.SliceOf(info.Type), n, n)
	switch c.Kind {
	case protocol.ColumnRaw:
		size := int(info.Size)
		if c.Size != size || len(c.Raw) != n*size || values.HoldsPointers(info.Type) {
			return out, fmt.Errorf("recorded as %d bytes a value, %d in all; the type is %d bytes", c.Size, len(c.Raw), size)
		}
		if size > 0 && n > 0 {
			copy(unsafeBytes(out, n*size), c.Raw)
		}
	case protocol.ColumnValues:
		if len(c.Values) != n {
			return out, fmt.Errorf("%d values for %d rows", len(c.Values), n)
		}
		for i := range c.Values {
			if err := ecs.RestoreValue(out.Index(i), c.Values[i].Interface()); err != nil {
				return out, err
			}
		}
	default:
		return out, fmt.Errorf("a column of kind %d", c.Kind)
	}
	return out, nil
}

// imageEvents splits a recorded queue's events into last frame's and this
// frame's; a queue that held more than a frame records says so.
func imageEvents(typ reflect.Type, q protocol.EventQueue) (ecs.ImageEvents, string, error) {
	all := reflect.MakeSlice(reflect.SliceOf(typ), len(q.Recent), len(q.Recent))
	for i := range q.Recent {
		if err := ecs.RestoreValue(all.Index(i), q.Recent[i].Interface()); err != nil {
			return ecs.ImageEvents{}, "", err
		}
	}
	cur := min(q.Current, len(q.Recent))
	prev := min(q.Previous, len(q.Recent)-cur)
	note := ""
	if prev+cur < q.Previous+q.Current {
		note = fmt.Sprintf("events %s: the last %d of %d were recorded and restored", q.Name, prev+cur, q.Previous+q.Current)
	}
	n := all.Len()
	return ecs.ImageEvents{Previous: all.Slice(n-cur-prev, n-cur), Current: all.Slice(n-cur, n), Total: q.Total}, note, nil
}

// unsafeBytes is the first n bytes of a slice's memory (a slice of a
// pointer-free type).
func unsafeBytes(s reflect.Value, n int) []byte {
	return unsafe.Slice((*byte)(s.UnsafePointer()), n)
}

// restoreMark is the last rewind: the change stamps its restore wrote
// (from up to, not including, to) and the tick restored, by whom.
type restoreMark struct {
	from, to uint32
	at       protocol.Provenance
	marks    restoredMarks // who wrote and added the values restored
}

// holds reports whether e's component id is as the last rewind restored
// it: written by the restore and not since.
func (r restoreMark) holds(w *ecs.World, e ecs.Entity, id ecs.ComponentID) bool {
	if r.to == 0 {
		return false
	}
	return w.Inspect().ChangedSince(e, id, r.from) && !w.Inspect().ChangedSince(e, id, r.to)
}
