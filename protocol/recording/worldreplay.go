package recording

import (
	"errors"
	"fmt"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// Replay rebuilds world states from a recording: the state at a frame is
// its keyframe's, with every frame after it applied in order. Moving
// forward applies only the frames in between; moving back, or past a
// keyframe, starts from the nearest keyframe. Seeking reads and
// decompresses those frames only, never the whole file.
type Replay struct {
	rec   *Recording
	state *WorldState
	at    int // the frame the state holds, -1 for none
	// Progress, if set, is told how many of the frames a seek applies are
	// applied, every progressEvery frames; returning false stops the seek
	// there (At returns ErrStopped), so a reader stays in its user's hands
	// through a long replay.
	Progress func(applied, of int) bool
}

// ErrStopped is At's error when Progress stopped it.
var ErrStopped = errors.New("the replay was stopped")

// progressEvery is how many frames a seek applies between calls to
// Progress.
const progressEvery = 64

// NewReplay returns a replay of rec, at no frame yet. What it rebuilds
// is bounded by the file's size (LimitsForFile): a frame that would take
// it past them is an error.
func NewReplay(rec *Recording) *Replay {
	st := NewWorldState()
	st.Limits = protocol.LimitsForFile(rec.size)
	return &Replay{rec: rec, state: st, at: -1}
}

// At returns the state at frame i. The state is the replay's own and
// changes at the next call: copy what must outlive it, or use two replays.
func (r *Replay) At(i int) (*WorldState, error) {
	if i < 0 || i >= len(r.rec.Frames) {
		return nil, fmt.Errorf("frame %d of %d", i, len(r.rec.Frames))
	}
	k := r.rec.KeyframeAt(i)
	if k < 0 {
		return nil, errors.New("no keyframe at or before this frame: the recording's start is missing")
	}
	from := k
	if r.at >= k && r.at <= i && r.state.Valid() {
		from = r.at + 1
	}
	for j := from; j <= i; j++ {
		if r.Progress != nil && (j-from)%progressEvery == 0 && !r.Progress(j-from, i-from+1) {
			r.at = -1
			return nil, ErrStopped
		}
		m, err := r.rec.Message(j)
		if err != nil {
			r.at = -1
			return nil, err
		}
		f, ok := m.(*protocol.WorldFrame)
		if !ok {
			r.at = -1
			return nil, fmt.Errorf("frame %d is a %T, not a world frame", j, m)
		}
		if j == k && !f.Full {
			r.at = -1
			return nil, fmt.Errorf("frame %d is marked a keyframe but holds a delta", j)
		}
		if err := r.state.Apply(f); err != nil {
			r.at = -1
			return nil, fmt.Errorf("frame %d (tick %d): %w", j, f.Tick, err)
		}
		r.at = j
	}
	return r.state, nil
}

// AtTick returns the state of the last frame at or before tick, and that
// frame's index: between recorded ticks, the state as of the one before
// (see Recording.FrameFor); a tick before the recording is an error.
func (r *Replay) AtTick(tick uint64) (*WorldState, int, error) {
	i, _, err := r.rec.FrameFor(tick)
	if err != nil {
		return nil, 0, err
	}
	s, err := r.At(i)
	return s, i, err
}
