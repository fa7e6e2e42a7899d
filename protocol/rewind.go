package protocol

import (
	"errors"
	"fmt"
)

// Rewind: the agent keeps the last moments of the run in memory, as a
// recording (keyframes and deltas), and puts the live world back to any
// tick it holds.

// TypeRewind tags a Rewind.
const TypeRewind Type = 19

// Rewind asks the agent to restore the live world to the newest recorded
// tick at or before T, from its in-memory recording (the summary's telemetry says which ticks
// it holds): every entity under the same handle in the same row, component
// values, parents, resources and events as they were; then the game is
// paused there, to step or resume. A change, refused on read-only
// sessions.
type Rewind struct {
	ID   uint32 `msgpack:"id"`
	Tick uint64 `msgpack:"t"`
	// Back, when set, counts back from the game's current tick instead:
	// Tick is then ignored.
	Back uint64 `msgpack:"b,omitempty"`
	// Exact, when the tick restored (the newest recorded at or before
	// the one asked for) is earlier, has the agent run the game's frames
	// on to the tick asked for, then pause.
	Exact bool `msgpack:"x,omitempty"`
	// Hold: the pause it leaves is held (see Pause).
	Hold bool `msgpack:"hold,omitempty"`
}

// Type implements Message.
func (*Rewind) Type() Type { return TypeRewind }

// RequestID implements Request.
func (m *Rewind) RequestID() uint32 { return m.ID }

// RewindRange is what the agent's in-memory recording holds.
type RewindRange struct {
	From   uint64 `msgpack:"f"` // the oldest tick it can rewind to
	To     uint64 `msgpack:"t"` // the newest
	Frames int    `msgpack:"n"` // frames held
	// Seconds is the game's running time from From to To (paused time
	// not counted); Window the running time the recording keeps when its
	// bytes allow (Options.RewindWindow).
	Seconds float64 `msgpack:"s,omitempty"`
	Window  float64 `msgpack:"w,omitempty"`
	// Age is the game's running time since the newest frame was kept: how
	// far behind the game a Rewind's newest tick is (the ring records a
	// frame a second, or less often, at least one every 4 s, when its
	// copies and their coding cost more than their share).
	Age   float64 `msgpack:"a,omitempty"`
	Bytes int64   `msgpack:"b"`  // bytes held
	Limit int64   `msgpack:"lb"` // bytes it may hold
	// Copy is the bytes of the world copy the recording codes each frame
	// against (what changed since the previous frame), beside the frames.
	Copy int64 `msgpack:"cb,omitempty"`
	// Short says, when the byte limit keeps the recording from reaching
	// back its whole window, how far it can and what limit would do; with
	// Frames 0, why the agent keeps no recording at all (a keyframe of the
	// world takes more than a quarter of Limit).
	Short string `msgpack:"why,omitempty"`
}

// AllocFrame is the entity allocator's part of a world frame: with the
// live entities' handles it gives every slot's generation and the free
// list, so a world restored to the frame hands out the same handles next.
// A keyframe holds Gens; a delta the free list's change: Keep entries of
// the previous frame's list stay at its bottom, Free lists the entries
// above them, bottom first (the last is reused first).
type AllocFrame struct {
	Slots int        `msgpack:"n"`
	Gens  []uint32   `msgpack:"g,omitempty"`
	Keep  int        `msgpack:"k,omitempty"`
	Free  []EntityID `msgpack:"f,omitempty"`
}

// AllocState is the allocator as a stream of frames rebuilds it.
type AllocState struct {
	Known bool     // every frame since the keyframe carried its part
	Slots int      // slots in all
	Gens  []uint32 // from the keyframe: a slot's generation unless it is alive or free since
	Free  []EntityID
}

// Apply folds a frame's allocator part into the state; a keyframe's
// starts it anew. It checks before it changes anything.
func (s *AllocState) Apply(a *AllocFrame, full bool) error {
	if a == nil {
		*s = AllocState{}
		return nil
	}
	if a.Slots < 0 || a.Slots > MaxTableRows {
		return fmt.Errorf("allocator: %d slots", a.Slots)
	}
	for _, e := range a.Free {
		if int(e.Index()) >= a.Slots {
			return fmt.Errorf("allocator: free slot %d of %d", e.Index(), a.Slots)
		}
	}
	if full {
		if len(a.Gens) != a.Slots || a.Keep != 0 {
			return errors.New("allocator: a keyframe must give every slot's generation")
		}
		*s = AllocState{Known: true, Slots: a.Slots, Gens: a.Gens, Free: a.Free}
		return nil
	}
	if !s.Known {
		return nil // nothing to build on until the next keyframe
	}
	if a.Gens != nil || a.Keep < 0 || a.Keep > len(s.Free) || a.Slots < s.Slots {
		return errors.New("allocator: a delta that does not follow the frame before")
	}
	s.Slots = a.Slots
	s.Free = append(s.Free[:a.Keep:a.Keep], a.Free...)
	return nil
}
