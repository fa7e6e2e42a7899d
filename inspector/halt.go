package inspector

import (
	"fmt"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/server"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Breaking at the write.
//
// A value watchpoint that pauses, hit by a system's write, asks the
// schedule to halt (checkSystem calls SystemRun.Halt). The schedule stops
// as soon as no system runs, before the systems that had not started and
// before the stage's commands (a despawn queued on the entity) apply, and
// calls haltMidFrame on the game goroutine. The agent then serves clients
// as it does when paused between frames: every read, with the frame in
// progress as the tick (tick), and the Summary's Halt saying where. What
// would change the world or write a frame to a file waits for the frame's
// end (midFrameRefusal); resume and step finish the frame.

// haltMidFrame holds the game inside the frame until a client lets it go.
func (a *Agent) haltMidFrame(at ecs.Halt) {
	a.watches.Halted() // the pause the hit asked for is this one, not one at the frame's end
	a.mid = &protocol.Halt{System: at.Asked, Stage: at.Stage, Ran: at.Ran, Of: at.Systems}
	a.paused, a.stepLeft = true, 0
	start := time.Now()
	a.capture(start) // the clients see the halt now, not at their next period
	a.hold()
	a.mid = nil
	a.watches.Released()
	held := time.Since(start)
	a.pausedFor += held
	a.pausedAll.Add(int64(held))
	a.haltedFor += held
}

// deferred is a request carried out at the frame's end.
type deferred struct {
	c *peer
	m protocol.Message
}

// atFrameEnd lets the frame finish, pausing at its end, where the next
// Sync carries out m (a Rewind asked for inside the frame: images are of
// frames' ends).
func (a *Agent) atFrameEnd(c *peer, m protocol.Message) {
	a.deferred = append(a.deferred, deferred{c, m})
	a.paused, a.stepLeft = false, 1
}

// applyDeferred carries out the requests that waited for the frame's end,
// for the clients still there.
func (a *Agent) applyDeferred() {
	for _, d := range a.deferred {
		if a.live[d.c.Client] == d.c {
			a.apply(d.c, d.m)
		}
	}
	a.deferred = a.deferred[:0]
}

// tick is the frame the world shows now, as the Summary numbers it: the
// frames completed between frames, the frame in progress inside one.
func (a *Agent) tick() uint64 {
	if a.mid != nil {
		return a.w.Frame() + 1
	}
	return a.w.Frame()
}

// midFrameRefusal says why m waits for the frame's end while the game is
// stopped inside it: changes to the world (the frame's own systems and
// commands are half done) and what writes a frame to a file or a ring.
// Pause, resume and step are answered (the last two finish the frame), and
// so is a watchpoint, pausing or not.
func (a *Agent) midFrameRefusal(m protocol.Message) string {
	if a.mid == nil {
		return ""
	}
	switch m.(type) {
	case *protocol.Pause, *protocol.Resume, *protocol.Step:
		return ""
	case *protocol.Watch: // it changes no data, and the game is stopped already: a script sets its next stop here
		return ""
	case *protocol.SnapshotRequest:
	default:
		if !protocol.ChangesWorld(m) {
			return ""
		}
	}
	return fmt.Sprintf("the game is stopped inside frame %d, after %s: %s waits for the frame's end (step or resume finishes it)",
		a.tick(), a.mid.System, server.DescribeRequest(m))
}

// releaseAlone ends a pause no client may end (none is connected that may
// resume: read-only sessions do not count): at once if it is not held,
// after Options.HoldTimeout alone if it is (see Pause's hold). A held
// pause let go this way suspends the pausing watchpoints that held it, so
// the next frame's hit does not take the game again: each says why, and
// turning it on again re-arms it.
func (a *Agent) releaseAlone(now time.Time) bool {
	if a.resumers() > 0 {
		a.alone = time.Time{}
		return false
	}
	if a.held && a.opts.HoldTimeout != 0 {
		if a.alone.IsZero() {
			a.alone = now
		}
		if a.opts.HoldTimeout < 0 || now.Sub(a.alone) < a.opts.HoldTimeout {
			return false
		}
		a.logf("the game was held paused with no client that may resume it for %v: it runs on", a.opts.HoldTimeout)
		a.watches.SuspendHolding(fmt.Sprintf("it held the game paused for %v with no client that may resume it, and the game was let go; turn it on to arm it again", a.opts.HoldTimeout))
	}
	a.paused, a.held, a.alone = false, false, time.Time{}
	return true
}

// resumers is how many connected clients may end a pause.
func (a *Agent) resumers() int {
	n := 0
	for _, c := range a.live {
		if a.mayEdit(c) {
			n++
		}
	}
	return n
}
