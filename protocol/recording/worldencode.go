package recording

import (
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
}

// WorldEncoder turns captures into WorldFrames, each coded against the
// state the reader will hold after the frame before, and says when the
// next capture should be a keyframe: when the bytes of deltas since the
// last keyframe reach KeyframeRatio times that keyframe's size (so
// rebuilding any tick reads at most about KeyframeRatio+1 keyframes' worth
// of bytes), or after MaxKeyframeGap frames.
type WorldEncoder struct {
	state     *WorldState
	seq       uint64
	started   bool
	keyBytes  int
	lastDelta int // the newest delta's size
	sinceKey  int
	framesKey int
	wantKey   atomic.Bool
	held      atomic.Int64 // the state's footprint, for StateBytes
	Sub       uint32       // the subscription id the frames carry
}

// Keyframe policy.
const (
	KeyframeRatio  = 4
	MaxKeyframeGap = 3600
)

// NewWorldEncoder returns an encoder whose first frame must be full.
func NewWorldEncoder() *WorldEncoder {
	e := &WorldEncoder{state: NewWorldState()}
	e.state.owned = true
	e.wantKey.Store(true)
	return e
}

// StateBytes is the bytes of the world copy the encoder codes the next
// frame against, as of its last frame. Safe to call from any goroutine.
func (e *WorldEncoder) StateBytes() int64 { return e.held.Load() }

// WantKeyframe reports whether the next capture should be full. Safe to
// call from any goroutine.
func (e *WorldEncoder) WantKeyframe() bool { return e.wantKey.Load() }

// RequestKeyframe makes the next capture a keyframe, in the same stream.
// Safe to call from any goroutine.
func (e *WorldEncoder) RequestKeyframe() { e.wantKey.Store(true) }

// Restart makes the next frame a keyframe that starts the stream anew
// (after frames were lost).
func (e *WorldEncoder) Restart() { e.wantKey.Store(true); e.started = false }

// Encode codes one capture. A delta before any keyframe is an error.
func (e *WorldEncoder) Encode(in *WorldInput) (*protocol.WorldFrame, error) {
	if !in.Full && !e.started {
		return nil, ErrNeedKeyframe
	}
	f := &protocol.WorldFrame{Sub: e.Sub, Tick: in.Tick, Full: in.Full}
	if e.started {
		f.Seq = e.seq + 1
	}
	base := e.state
	if in.Full {
		base = NewWorldState()
		base.owned = true
	}
	body := &protocol.WorldBody{Links: in.Links, LinksSet: in.LinksSet, Journal: in.Journal, Events: in.Events, Alloc: in.Alloc}
	if in.Full || e.state.Summary == nil {
		body.Summary = *in.Summary
		body.Summary.Full = true
	} else {
		body.Summary = *protocol.DiffSummary(e.state.Summary, in.Summary)
	}
	body.Summary.Sub = 0
	body.Tables = make([]protocol.TableFrame, len(in.Tables))
	for i := range in.Tables {
		base.encodeTable(&in.Tables[i], &body.Tables[i])
	}
	guess := e.lastDelta // the last body like it, and a little room
	if in.Full {
		guess = e.keyBytes
	}
	if err := protocol.SealBodySized(f, body, guess+guess/16); err != nil {
		return nil, err
	}
	if in.Full {
		*e.state = *base
	}
	e.state.applyChanges(in.Tables)
	sum := *in.Summary
	sum.Full = true
	e.state.Tick, e.state.Summary, e.state.seq, e.state.valid = in.Tick, &sum, f.Seq, true
	e.seq, e.started = f.Seq, true
	e.held.Store(e.state.bytes)
	e.account(len(f.Body), in.Full)
	return f, nil
}

func (e *WorldEncoder) account(n int, key bool) {
	if key {
		e.keyBytes, e.sinceKey, e.framesKey = n, 0, 0
		e.wantKey.Store(false)
		return
	}
	e.sinceKey += n
	e.lastDelta = n
	e.framesKey++
	if e.sinceKey >= KeyframeRatio*e.keyBytes || e.framesKey >= MaxKeyframeGap {
		e.wantKey.Store(true)
	}
}

// encodeTable codes one table's change against the state before it.
func (s *WorldState) encodeTable(c *TableChange, tf *protocol.TableFrame) {
	*tf = protocol.TableFrame{Archetype: c.Archetype, Sparse: c.Sparse, Components: c.Components, Len: c.Len, All: c.All, Moved: c.Entities != nil}
	old := s.Tables[tableKey(c.Archetype, c.Sparse)]
	if c.Entities != nil {
		var base []byte
		if old != nil {
			base = protocol.EntityBytes(old.Entities)
		}
		tf.Entities = protocol.AppendPlanes(nil, protocol.EntityBytes(c.Entities), base, 8)
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
		cf.Raw = protocol.AppendPlanes(nil, cc.Raw, xorBase(oldCol, cc.Size, cc.Changed, c.All), cc.Size)
	}
}
