package inspector

import (
	"fmt"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The in-memory recording holds a world only while a quarter of its byte
// budget holds a keyframe of it: a world bigger than that would be held as
// one or two keyframes (a rewind to two ticks seconds apart) at the cost
// of the budget, the capture coded beside it and the collector's headroom
// over both (a million entities: 450 MB of the process's 800). So the
// agent weighs the world's values once a second and runs the ring while
// they fit, and says why it keeps none while they do not: the summary's
// rewind range (why) and a Rewind's refusal name the size and the budget
// that would hold it.

// ringKeyframes is how many keyframes of the world RewindBytes must hold
// for the ring to run; it starts again once one more would fit, so a
// world near the line does not start and stop it every second.
const ringKeyframes = 4

// ringWeighEvery is how often the agent weighs the world for the ring.
const ringWeighEvery = time.Second

// worldValueBytes is what a keyframe of the world holds before coding:
// every row's values and handle, and every slot's generation.
func worldValueBytes(w *ecs.World) int64 {
	ins := w.Inspect()
	n := int64(ins.Stats().Slots) * 4
	for _, ar := range ins.Archetypes() {
		row := int64(8)
		for _, id := range ar.Components {
			row += int64(ins.Component(id).Size)
		}
		n += int64(ar.Len) * row
	}
	return n
}

// ringTooBig says why the ring cannot hold a world of bytes within its
// budget, or "" when it can; running says whether the ring runs now.
func ringTooBig(bytes, limit int64, running bool) string {
	need := int64(ringKeyframes)
	if !running {
		need++
	}
	if bytes*need <= limit {
		return ""
	}
	return fmt.Sprintf("no rewind: a keyframe of this world holds about %s of values, and the %s limit would keep %d at most (Options.RewindBytes of %s or more keeps the last moments)",
		protocol.ByteSize(bytes), protocol.ByteSize(limit), limit/max(bytes, 1), protocol.ByteSize(bytes*(ringKeyframes+1)))
}

// keepRing runs the in-memory recording for this Sync: it captures the
// frame, or starts the ring, or ends it, as the world's weight (taken at
// most once a second) says.
func (a *Agent) keepRing(now time.Time) {
	if a.opts.RewindBytes <= 0 {
		return
	}
	if now.Sub(a.ringWeighed) >= ringWeighEvery { // the first Sync too: the zero time is long ago
		a.ringWeighed = now
		a.ringOff = ringTooBig(worldValueBytes(a.w), a.opts.RewindBytes, a.ring != nil)
	}
	switch {
	case a.ring != nil && a.ringOff != "" && !a.rewinding:
		a.ring.End(a.ringOff)
		a.ring, a.ringMem = nil, nil
	case a.ring != nil:
		a.ring.Capture(now)
	case a.ringOff == "":
		a.startRing(nil, 0)
	}
}
