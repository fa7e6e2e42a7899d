package recording

import (
	"errors"
	"fmt"
	"strings"

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
	// limits are the file's (protocol.LimitsForFile); each frame is read
	// within them and what follows.
	limits protocol.ReadLimits
	// keyInflated is what the chain's keyframe decompressed to, and
	// chainInflated what the frames after it did (maxChain bounds them).
	keyInflated, chainInflated int64
	// scanLeft, during a scan, is what its frames may still decompress
	// to (maxScan); nil outside a scan.
	scanLeft *int64
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
	return &Replay{rec: rec, state: st, at: -1, limits: st.Limits}
}

// What a reader decompresses is bounded over a keyframe's chain and over
// a whole scan, not only frame by frame: a small crafted file of many
// frames, each inflating to hundreds of MiB, would otherwise hold a
// reader for hours. A writer starts a keyframe once the deltas since the
// last hold about four keyframes' worth.
const (
	// chainFactor and chainFloor bound the deltas after a keyframe: at
	// most chainFactor times what the keyframe decompressed to, or
	// chainFloor if that is more.
	chainFactor = 8
	chainFloor  = 64 << 20
	// scanFactor and scanFloor bound a scan of every frame (a first-tick
	// search, an entity's history): scanFactor times the file, or
	// scanFloor if that is more.
	scanFactor = 256
	scanFloor  = 512 << 20
)

// chainRoom is what the next delta of the chain may decompress to.
func (r *Replay) chainRoom() int64 {
	return max(chainFloor, chainFactor*r.keyInflated) - r.chainInflated
}

// frameLimits are the limits frame j of the chain from keyframe k is read
// within, and, where the chain's or the scan's bound is tighter than the
// file's, why a frame that needs more is refused.
func (r *Replay) frameLimits(j, k int) (lim protocol.ReadLimits, why error) {
	lim = r.limits
	if j != k {
		if room := r.chainRoom(); room < int64(lim.MaxBody) {
			lim.MaxBody, why = int(max(room, 0)), fmt.Errorf("the frames after the keyframe at frame %d decompress to over %s (%d times the keyframe, at least %s; a writer starts a keyframe long before): the file is damaged or crafted", k, protocol.ByteSize(max(int64(chainFloor), chainFactor*r.keyInflated)), chainFactor, protocol.ByteSize(int64(chainFloor)))
		}
	}
	if r.scanLeft != nil && *r.scanLeft < int64(lim.MaxBody) {
		lim.MaxBody, why = int(max(*r.scanLeft, 0)), fmt.Errorf("reading every frame would decompress over %s (%d times the file, at least %s): the file is damaged or crafted", protocol.ByteSize(max(int64(scanFloor), scanFactor*r.rec.size)), scanFactor, protocol.ByteSize(int64(scanFloor)))
	}
	return lim, why
}

// charge counts what frame j of the chain from keyframe k decompressed
// to.
func (r *Replay) charge(j, k int) {
	n := int64(r.state.inflated)
	if j == k {
		r.keyInflated, r.chainInflated = n, 0
	} else {
		r.chainInflated += n
	}
	if r.scanLeft != nil {
		*r.scanLeft -= n
	}
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
		lim, why := r.frameLimits(j, k)
		r.state.Limits = lim
		if lim.MaxBody == 0 {
			r.at = -1
			return nil, fmt.Errorf("frame %d (tick %d): %w", j, f.Tick, why)
		}
		apply := r.state.Apply
		if j < i { // on the way: its journal and events, which the next frame replaces, are not read
			apply = r.state.Pass
		}
		if err := apply(f); err != nil {
			r.at = -1
			if why != nil && strings.Contains(err.Error(), "decompress") {
				err = why
			}
			return nil, fmt.Errorf("frame %d (tick %d): %w", j, f.Tick, err)
		}
		r.charge(j, k)
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
