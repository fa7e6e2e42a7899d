package inspector

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Rewind: the agent records the last moments of the run into a ring in
// memory (ring.go) and, on a client's Rewind, rebuilds the recorded tick
// off the game goroutine (the frames from its keyframe, then an ecs.Image
// of them) and restores it on the game goroutine, where the game then
// stays paused.

// startRing starts the in-memory recording, going on from seed (the frames
// kept from before a rewind).
func (a *Agent) startRing(seed []record.Frame, bytes int64) {
	mem := record.NewRing(a.opts.RewindBytes, a.opts.RewindWindow, seed, bytes)
	mem.Clock = a.runTime                                    // the window is of the game's running time: a pause keeps its frames
	r := a.newRecorder(mem, a.opts.RewindHz, a.srv.Closed()) // the ring ends with the agent
	r.Stream.Cap.Marks = true                                // who wrote what a rewind restores (record/marks.go)
	r.Stream.Enc.Lean = true                                 // in memory: no copy where deltas do not pay
	r.Stream.CarryDead(nil, 0)                               // a rewind's dead are the agent's own (graves): the ring does not carry them
	if a.opts.rewindPaced {
		r.Share, r.EncodeInShare, r.Within = ringShare, true, ringWithin
	}
	mem.AskKeyframes(r.Stream.Enc.RequestKeyframe)
	a.ring, a.ringMem = r, mem
	r.Begin()
}

// runTime is the game's running time since the agent began, its pauses
// (between frames or inside one) left out; safe from any goroutine.
func (a *Agent) runTime() time.Duration {
	return time.Since(a.began) - time.Duration(a.pausedAll.Load())
}

// ringShare is the most of the game's time the in-memory recording may
// take at the default rate, its copies on the game goroutine and their
// coding on another together, but for one frame each ringWithin: a world
// whose frame costs more than this share of the recording's period is
// recorded less often than RewindHz asks (the 100k demo's copy and coding,
// 20-25 ms, every 2-3 s; a million entities' less often), and the
// summary's rewind range says how old its newest frame is (Age).
const ringShare = 0.01

// ringWithin is the longest the ring goes without a frame, whatever its
// share: a Rewind's newest tick stays within a few seconds of the game
// (and the encoder's queue: it never waits for it).
const ringWithin = 4 * time.Second

// rewind starts a client's Rewind: the frames are rebuilt on another
// goroutine, and the restore waits for a later Sync.
func (a *Agent) rewind(c *peer, id uint32, tick uint64, exact bool) {
	fail := func(code, msg string) { c.Answer(&protocol.Reply{ID: id, Code: code, Message: msg}) }
	switch {
	case a.ringMem == nil && a.ringOff != "":
		fail(protocol.ErrState, a.ringOff)
		return
	case a.ringMem == nil:
		fail(protocol.ErrState, "this agent keeps no in-memory recording to rewind from (Options.RewindBytes)")
		return
	case a.rewinding:
		fail(protocol.ErrState, "a rewind is under way")
		return
	}
	if now := a.w.Frame(); tick > now {
		msg := fmt.Sprintf("tick %d is after the game's tick %d", tick, now)
		if to := now + uint64(a.stepLeft); a.stepLeft > 0 && tick <= to {
			msg += fmt.Sprintf(": the game is playing on to tick %d (an exact rewind's replay, or a step) and pauses there; ask again then", to)
		}
		fail(protocol.ErrNotFound, msg)
		return
	}
	frames, err := a.ringMem.Span(tick)
	if err != nil {
		fail(protocol.ErrNotFound, err.Error())
		return
	}
	types := record.TypesOf(a.w)
	a.rewinding = true
	go func() {
		started := time.Now()
		rb, err := record.Rebuild(frames, types)
		done := func() { a.finishRewind(c, id, tick, exact, rb, err, started) }
		select {
		case a.calls <- done:
			a.srv.WakeGame()
		case <-a.srv.Closed():
		}
	}()
}

// finishRewind restores the rebuilt tick, on the game goroutine; exact
// runs the game on from there to the tick asked for.
func (a *Agent) finishRewind(c *peer, id uint32, asked uint64, exact bool, rb *record.Rebuilt, err error, started time.Time) {
	a.rewinding = false
	if err == nil {
		a.resourcesInto(rb)
	}
	from := a.w.Inspect().NextStamp()
	if err == nil {
		a.w.Inspect().ActAs(c.Actor(), func() { err = a.w.Restore(rb.Image) })
	}
	if err != nil {
		c.Answer(&protocol.Reply{ID: id, Code: protocol.ErrBadValue, Message: "rewind: " + trimPkg(err) + ": the world is unchanged"})
		return
	}
	tick := rb.Image.Frame
	a.editedBy(c.Actor()) // the resources it put back are its
	a.paused, a.stepLeft = true, 0
	a.watches.AfterRestore()
	a.rewound(tick)
	rb.Marks.Through(a.restore.marks, a.restore.from, a.restore.to) // frames captured since the last rewind hold its restore's stamps
	a.restore = restoreMark{from: from, to: a.w.Inspect().NextStamp(), at: protocol.Provenance{Tick: tick, By: c.Actor()}, marks: rb.Marks}
	seed, bytes := a.ringMem.Before(tick)
	a.ring.End("the game was rewound")
	a.startRing(seed, bytes)
	for _, r := range slices.Clone(a.recorders) {
		r.End("the game was rewound")
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
	for _, n := range rb.Notes {
		msg += "; " + n
	}
	c.Answer(&protocol.Reply{ID: id, OK: true, Message: msg})
	a.capture(time.Now()) // every client sees the rewound world at once
}

// resourcesInto converts the recorded resources over copies of the
// game's (the fields a recording holds are the exported ones); one it
// cannot put back whole stays as the game has it, noted in rb.Notes.
func (a *Agent) resourcesInto(rb *record.Rebuilt) {
	byName := map[string][]ecs.ResourceInfo{}
	for _, r := range a.w.Inspect().Resources() {
		byName[r.Short] = append(byName[r.Short], r)
	}
	rb.Image.Resources = map[reflect.Type]reflect.Value{}
	for _, rec := range rb.Resources {
		now := byName[rec.Name]
		if len(now) != 1 {
			rb.Notes = append(rb.Notes, fmt.Sprintf("resource %s kept as it is (the game has %d by that name)", rec.Name, len(now)))
			continue
		}
		if note, ok := notKept(rec.Value); ok && now[0].Value.Kind() != reflect.String {
			rb.Notes = append(rb.Notes, fmt.Sprintf("resource %s kept as it is (the rewind's recording did not keep it: %s)", rec.Name, note))
			continue
		}
		v := reflect.New(now[0].Value.Type()).Elem()
		v.Set(now[0].Value)
		if err := ecs.RestoreValue(v, rec.Value.Interface()); err != nil {
			// A value the recording holds in part (a graph's repeats, a
			// list cut at its bound) is not put back half-way: the
			// resource stays as the game has it, and the reply says so.
			rb.Notes = append(rb.Notes, fmt.Sprintf("resource %s kept as it is (%v)", rec.Name, err))
			continue
		}
		rb.Image.Resources[v.Type()] = v
	}
}

// notKept reports whether a recorded value is the note that stands for
// a value too big to keep (values.Keep), and the note's reason.
func notKept(v protocol.Value) (string, bool) {
	if v.Kind() != protocol.KindString {
		return "", false
	}
	return strings.CutPrefix(v.Str(), values.NotKeptPrefix)
}

// restoreMark is the last rewind: the change stamps its restore wrote
// (from up to, not including, to) and the tick restored, by whom.
type restoreMark struct {
	from, to uint32
	at       protocol.Provenance
	marks    record.RestoredMarks // who wrote and added the values restored
}

// marked reports whether mark is one of the last rewind's own writes.
func (r restoreMark) marked(mark uint32) bool {
	return r.to != 0 && int32(mark-r.from) > 0 && int32(mark-r.to) <= 0
}

// whoMarked names who wrote and who added e's component id from the marks
// of its last write and add (ecs.Inspection.Marks; for a dead entity, as
// its despawn found them: graves.Who): the writer log's runs. A restore's
// own writes and adds are not provenance: they give way to the writers
// its marks kept for the tick restored (nil where they do not say), so a
// component added by reproduction says so after any number of rewinds
// and frames since, and a value written since names its writer.
func (a *Agent) whoMarked(e ecs.Entity, id ecs.ComponentID, written, added uint32) (w, ad *protocol.Provenance) {
	ins := a.w.Inspect()
	w, ad = values.Provenance(ins.MarkProvenance(id, written)), values.Provenance(ins.MarkProvenance(id, added))
	if w != nil { // a stamp names the last holder: the others of its frame could have changed it too
		w.Held = ins.WriteHolders(id, w.Tick)
	}
	if r := a.restore; r.marked(written) || r.marked(added) {
		mw, ma := r.marks.Provenance(a.w, e, id)
		if r.marked(written) {
			w = mw
		}
		if r.marked(added) {
			ad = ma
		}
	}
	return w, ad
}
