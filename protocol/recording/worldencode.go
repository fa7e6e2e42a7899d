package recording

import (
	"slices"
	"sync/atomic"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// WorldInput is one capture of the world, in the clear, for a WorldEncoder.
type WorldInput struct {
	Tick     uint64
	Full     bool
	Summary  *protocol.Summary // full
	Tables   []TableChange
	Links    []protocol.ChildList
	LinksSet bool
	Journal  []protocol.JournalEntry
	Events   []protocol.EventQueue
	Alloc    *protocol.AllocFrame
	Dead     []protocol.DeadEntity
	// Lean says the capture was taken while the encoder was lean
	// (WorldEncoder.Lean): read LeanNow, then TakeKeyframe, before
	// capturing.
	Lean bool
}

// WorldEncoder turns captures into WorldFrames, each coded against the
// state the reader will hold after the frame before, and says when the
// next capture should be a keyframe: when the bytes of deltas since the
// last keyframe reach KeyframeRatio times that keyframe's size (so
// rebuilding any tick reads at most about KeyframeRatio+1 keyframes' worth
// of bytes), or KeyframeRawRatio times it before compression (so it
// decodes at most about that many keyframes' worth), or after
// MaxKeyframeGap frames.
type WorldEncoder struct {
	state     *WorldState
	laneOf    map[uint16]int // by component: the lane its values are predicted in (lanes)
	laneComps int            // the components laneOf was made for
	seq       uint64
	started   bool
	keyBytes  int
	lastDelta int // the newest delta's size
	sinceKey  int
	// keyRaw and rawSinceKey are keyBytes and sinceKey before compression
	// (WorldBody.SizeHint).
	keyRaw, rawSinceKey int
	framesKey           int
	askedKey            bool // the policy asked for a keyframe since the last one coded: once is enough
	// recentDead is the newest dead the frames carried, for keyframes
	// (carryDead).
	recentDead []protocol.DeadEntity
	wantKey    atomic.Bool
	held       atomic.Int64 // the state's footprint, for StateBytes
	Sub        uint32       // the subscription id the frames carry
	// Lean: when deltas do not pay (one took over half the keyframe
	// before it: a world where most values change between frames) or the
	// copy goes unused (a keyframe came next, asked for by the stream's
	// reader), code keyframes only and keep no world copy between them,
	// trying a delta again after leanProbe keyframes (twice as many after
	// each try that fails, up to maxLeanProbe). For a stream kept in
	// memory (the agent's rewind ring), where the copy would cost as much
	// as a frame.
	Lean     bool
	lastFull bool        // the last frame coded was a keyframe
	leanOn   atomic.Bool // deltas do not pay: every capture is a keyframe
	leanKeys int         // keyframes coded lean since the last probe
	probeGap int         // lean keyframes before the next probe (0: leanProbe)
	probing  bool        // a probe kept the copy; the frames after it say whether it pays
	copyless bool        // the state was dropped after a lean keyframe
	// arena holds a frame's coded columns until the frame is sealed, and
	// the next frame's after it (not Lean's).
	arena protocol.Arena
}

// leanProbe is how many keyframes a lean encoder codes with no copy before
// it keeps one to try a delta again; maxLeanProbe, the most after tries
// that failed.
const (
	leanProbe    = 8
	maxLeanProbe = 64
)

// Keyframe policy.
const (
	KeyframeRatio  = 4
	MaxKeyframeGap = 3600
	// KeyframeRawRatio bounds the deltas after a keyframe by what they
	// take to decode, their bytes before compression (past
	// keyframeRawFloor): predicted deltas compress so well that
	// KeyframeRatio alone let a seek of the 100k demo decode twice as many
	// frames.
	KeyframeRawRatio = 6
)

// keyframeRawFloor is the decoding below which KeyframeRawRatio asks no
// keyframe: a small world's seek decodes a few megabytes in milliseconds
// however many deltas, and its keyframes are a large share of its bytes.
const keyframeRawFloor = 24 << 20

// NewWorldEncoder returns an encoder whose first frame must be full.
func NewWorldEncoder() *WorldEncoder {
	e := &WorldEncoder{state: newOwnedState()}
	e.wantKey.Store(true)
	return e
}

// StateBytes is the bytes of the world copy the encoder codes the next
// frame against, as of its last frame. Safe to call from any goroutine.
func (e *WorldEncoder) StateBytes() int64 { return e.held.Load() }

// LeanNow reports whether the encoder codes keyframes only for now (see
// Lean); a capture records it in WorldInput.Lean. Safe to call from any
// goroutine.
func (e *WorldEncoder) LeanNow() bool { return e.leanOn.Load() }

// WantKeyframe reports whether the next capture should be full, leaving
// the request standing. Safe to call from any goroutine.
func (e *WorldEncoder) WantKeyframe() bool { return e.wantKey.Load() || e.leanOn.Load() }

// TakeKeyframe is WantKeyframe for the capture that acts on it: a
// keyframe asked for is taken by this capture, so the captures after it
// are deltas against it even while the encoder, behind, has yet to code
// it (else an encoder one frame behind would be handed keyframe after
// keyframe, each dearer to take and code than a delta: the further
// behind, the more). A lean encoder's captures are all keyframes. Call
// it once a capture, from the goroutine that captures.
func (e *WorldEncoder) TakeKeyframe() bool { return e.wantKey.Swap(false) || e.leanOn.Load() }

// RequestKeyframe makes the next capture a keyframe, in the same stream.
// Safe to call from any goroutine.
func (e *WorldEncoder) RequestKeyframe() { e.wantKey.Store(true) }

// Restart makes the next frame a keyframe that starts the stream anew
// (after frames were lost).
func (e *WorldEncoder) Restart() { e.wantKey.Store(true); e.started = false }

// DropCopy lets the world copy go, for a stream whose captures come too
// seldom for the copy to pay its memory while it waits (the agent's
// rewind ring at a million entities kept a 42 MB copy between captures
// seconds apart): the next frame must be a keyframe, in the same stream. Call it from the goroutine that calls
// Encode.
func (e *WorldEncoder) DropCopy() {
	if !e.started || e.copyless {
		return
	}
	empty := newOwnedState()
	empty.Tick, empty.Summary, empty.seq, empty.valid = e.state.Tick, e.state.Summary, e.state.seq, e.state.valid
	*e.state = *empty
	e.copyless = true
	e.held.Store(0)
	e.wantKey.Store(true)
}

// carryDead is the dead a frame carries: those of its capture; on a
// keyframe, the newest protocol.MaxRecordedDead of every frame so far, so
// a reader that starts there knows of the recent deaths too.
func (e *WorldEncoder) carryDead(in *WorldInput) []protocol.DeadEntity {
	e.recentDead = append(e.recentDead, in.Dead...)
	if over := len(e.recentDead) - protocol.MaxRecordedDead; over > 0 {
		e.recentDead = append(e.recentDead[:0], e.recentDead[over:]...)
	}
	if in.Full {
		return slices.Clone(e.recentDead)
	}
	return in.Dead
}

// Encode codes one capture. A delta before any keyframe, or after a
// keyframe coded with no copy, is ErrNeedKeyframe (and the next capture
// is asked to be one).
func (e *WorldEncoder) Encode(in *WorldInput) (*protocol.WorldFrame, error) {
	if !in.Full && (!e.started || e.copyless) {
		e.wantKey.Store(true)
		return nil, ErrNeedKeyframe
	}
	f := &protocol.WorldFrame{Sub: e.Sub, Tick: in.Tick, Full: in.Full}
	if e.started {
		f.Seq = e.seq + 1
	}
	base := e.state
	if in.Full {
		base = newOwnedState()
	}
	body := &protocol.WorldBody{Links: in.Links, LinksSet: in.LinksSet, Journal: in.Journal, Events: in.Events, Alloc: in.Alloc, Dead: e.carryDead(in)}
	if in.LinksSet && !in.Full && e.state.valid { // a delta: the parents whose children changed
		body.Links, body.LinksSet = nil, false
		body.LinksChanged = protocol.DiffLinks(e.state.Links, in.Links)
	}
	if in.Full || e.state.Summary == nil {
		body.Summary = *in.Summary
		body.Summary.Full = true
	} else {
		body.Summary = *protocol.DiffSummary(e.state.Summary, in.Summary)
	}
	body.Summary.Sub = 0
	var resSteps []numbersStep
	if !in.Full && e.state.Summary != nil && body.Summary.Resources != nil {
		if changes, steps, ok := e.state.res.codeResources(e.state.Summary.Resources, in.Summary.Resources); ok {
			body.Summary.Resources, body.ResourcesChanged, resSteps = nil, changes, steps
		}
	}
	resListed := resourcesListed(in.Full, body)
	body.Tables = make([]protocol.TableFrame, len(in.Tables))
	var arena *protocol.Arena // a lean stream's frames come seconds apart: no memory kept between
	if !e.Lean {
		e.arena.Reset() // the frame before is sealed: nothing refers to its columns
		arena = &e.arena
	}
	packedAway := 0 // bytes of values packing took out of the body: a reader still decodes them
	for i := range in.Tables {
		packedAway += base.encodeTable(&in.Tables[i], &body.Tables[i], e.lanes(in.Summary), arena)
	}
	guess := e.lastDelta // the last body like it, and a little room
	if in.Full {
		guess = e.keyBytes
	}
	if err := protocol.SealBodySized(f, body, guess+guess/16); err != nil {
		return nil, err
	}
	if in.Full && !in.Lean && e.Lean && e.started && e.lastFull && !e.copyless {
		// A keyframe asked for right after one: the copy kept after the
		// last went unused. (One taken while lean is lean's own, taken
		// before the encoder, behind, coded its probe: no verdict.)
		e.goLean()
	}
	copyless := in.Full && in.Lean && e.leanOn.Load() && e.leanKeys < max(e.probeGap, leanProbe)
	switch {
	case copyless: // the next frame is a keyframe too: nothing to code it against
		e.leanKeys++
		*e.state = *base // a keyframe's base: empty
	case in.Full:
		if in.Lean && e.leanOn.Load() { // the probe: keep the copy, try a delta
			e.leanOn.Store(false)
			e.leanKeys, e.probing = 0, true
		}
		*e.state = *base
		e.state.applyChanges(in.Tables)
	default:
		e.state.applyChanges(in.Tables)
	}
	e.copyless, e.lastFull = copyless, in.Full
	sum := *in.Summary
	sum.Full = true
	if in.LinksSet || in.Full {
		e.state.Links = in.Links
	}
	e.state.res.step(resListed, resSteps)
	e.state.Tick, e.state.Summary, e.state.seq, e.state.valid = in.Tick, &sum, f.Seq, true
	e.seq, e.started = f.Seq, true
	e.held.Store(e.state.bytes)
	e.account(len(f.Body), body.SizeHint()+packedAway, in.Full)
	return f, nil
}

// account counts a frame of n bytes (raw before compression, values
// counted as a reader decodes them) toward the next keyframe.
func (e *WorldEncoder) account(n, raw int, key bool) {
	if key {
		e.keyBytes, e.sinceKey, e.framesKey, e.askedKey = n, 0, 0, false
		e.keyRaw, e.rawSinceKey = raw, 0
		return
	}
	e.sinceKey += n
	e.rawSinceKey += raw
	e.lastDelta = n
	e.framesKey++
	if e.Lean && 2*n > e.keyBytes { // deltas do not pay: keyframes only, no copy
		e.goLean()
		return
	}
	if e.probing { // a delta that pays: try again soon if it stops
		e.probing, e.probeGap = false, leanProbe
	}
	if (e.sinceKey >= KeyframeRatio*e.keyBytes || e.rawSinceKey >= max(KeyframeRawRatio*e.keyRaw, keyframeRawFloor) || e.framesKey >= MaxKeyframeGap) && !e.askedKey {
		e.askedKey = true // the captures since may be deltas coded before the keyframe asked for: ask once
		e.wantKey.Store(true)
	}
}

// goLean makes every capture a keyframe and the copy go; a probe that
// ends here doubles the wait for the next.
func (e *WorldEncoder) goLean() {
	if e.probing {
		e.probing, e.probeGap = false, min(2*max(e.probeGap, leanProbe), maxLeanProbe)
	}
	e.leanOn.Store(true)
}

// lanes is the lane each component's raw values are predicted in
// (protocol.PredictLane), from the summary's schemas, kept while they
// stay the same.
func (e *WorldEncoder) lanes(sum *protocol.Summary) map[uint16]int {
	if sum == nil {
		return e.laneOf
	}
	if e.laneOf != nil && len(sum.Components) == e.laneComps {
		return e.laneOf
	}
	e.laneOf, e.laneComps = make(map[uint16]int, len(sum.Components)), len(sum.Components)
	for _, c := range sum.Components {
		e.laneOf[c.ID] = protocol.PredictLane(c.Size, c.Fields)
	}
	return e.laneOf
}

// encodeTable codes one table's change against the state before it: a
// raw column's values against their prediction from the reader's last two
// values where its component's lanes allow (lanes), else XORed with the
// last. The coded bytes are carved from arena. It returns how many bytes
// fewer than the values' the packed columns took.
func (s *WorldState) encodeTable(c *TableChange, tf *protocol.TableFrame, lanes map[uint16]int, arena *protocol.Arena) (packedAway int) {
	*tf = protocol.TableFrame{Archetype: c.Archetype, Sparse: c.Sparse, Components: c.Components, Len: c.Len, All: c.All, Moved: c.Entities != nil}
	old := s.Tables[tableKey(c.Archetype, c.Sparse)]
	if c.Entities != nil {
		var base []protocol.EntityID
		if old != nil {
			base = old.Entities
		}
		tf.Entities = protocol.AppendEntityPlanes(arena.Room(8*len(c.Entities)), c.Entities, base)
	}
	tf.Columns = make([]protocol.ColumnFrame, len(c.Columns))
	for j := range c.Columns {
		cc, cf := &c.Columns[j], &tf.Columns[j]
		cf.Kind, cf.Size = cc.Kind, cc.Size
		cf.Changed = protocol.AppendRows(nil, cc.Changed, c.Len)
		cf.Added = protocol.AppendRows(nil, cc.Added, c.Len)
		if cc.Kind == protocol.ColumnValues {
			cf.Values = cc.Values
			continue
		}
		var oldCol *StateColumn
		if old != nil {
			oldCol = &old.Columns[j]
		}
		base := xorBase(oldCol, cc.Size, cc.Changed, c.All)
		if lane := lanes[c.Components[j]]; lane > 0 && cc.Size%lane == 0 && base != nil {
			cf.Lane, cf.Packed = uint8(lane), true
			cf.Raw = protocol.AppendPacked(arena.Room(protocol.PackedMost(len(cc.Raw), lane)), cc.Raw, base, prevBase(oldCol, cc.Size, cc.Changed, c.All), cc.Size, lane)
			packedAway += len(cc.Raw) - len(cf.Raw)
			continue
		}
		cf.Raw = protocol.AppendPlanes(arena.Room(len(cc.Raw)), cc.Raw, base, cc.Size)
	}
	return packedAway
}
