package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestTelemetrySaysWhatTheRingHolds: once the in-memory recording holds a
// frame, the agent's telemetry gives its frames' bytes and the world copy
// it codes frames against, at least the bytes of the world's values.
func TestTelemetrySaysWhatTheRingHolds(t *testing.T) {
	w, a := ringWorld(t, 1000)
	if rw := a.Telemetry().Rewind; rw != nil {
		t.Fatalf("before the first Sync the ring says %+v", rw)
	}
	syncUntilCopy(t, w, a)
	rw := a.Telemetry().Rewind
	var values int64
	for _, ar := range w.Inspect().Archetypes() {
		for _, id := range ar.Components {
			values += int64(ar.Len) * int64(w.Inspect().Component(id).Size)
		}
	}
	if rw.Copy < values || rw.Bytes <= 0 || rw.Bytes > rw.Limit {
		t.Fatalf("the ring says %+v for a world of %d bytes of values", rw, values)
	}
}

// TestRingKeepsNoCopyWhereDeltasDoNotPay: recording the demo four times a
// second, every value moves between frames, so the ring codes keyframes
// only and keeps no world copy beside them; a rewind from them restores
// the world as it was.
func TestRingKeepsNoCopyWhereDeltasDoNotPay(t *testing.T) {
	g := startDemo(t, 3000, 600, Options{RewindHz: 4})
	c := dial(t, &game{agent: g.agent}, protocol.Hello{})
	sum := c.summaryWhere(func(s *protocol.Summary) bool {
		return s.Agent.Rewind != nil && s.Agent.Rewind.Frames >= 3 && s.Agent.Rewind.Copy == 0
	})
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	now := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }).Tick
	if now > 600 {
		t.Fatalf("paused at tick %d, past the images kept", now)
	}
	to := sum.Agent.Rewind.To
	wantOK(t, "rewind", c.reply(&protocol.Rewind{Tick: to}))
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == to })
	if diff := imageDiff(g.first(t, to), g.image(t)); diff != "" {
		t.Fatalf("rewound to tick %d from a keyframe, the world is not what it was: %s", to, diff)
	}
}

// TestRingLetsAnIdleCopyGo: the in-memory recording keeps its world copy
// while frames come; when none comes for idleCopyLife (a game paused, or
// one whose captures come seconds apart), it lets the copy go, and frames
// come again after it.
func TestRingLetsAnIdleCopyGo(t *testing.T) {
	w, a := ringWorld(t, 1) // one capture, then none for a second
	syncUntilCopy(t, w, a)
	for deadline := time.Now().Add(time.Minute); a.Telemetry().Rewind.Copy != 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the ring still holds a copy of %d bytes a minute with no frame", a.Telemetry().Rewind.Copy)
		}
	}
	frames := a.Telemetry().Rewind.Frames
	for deadline := time.Now().Add(time.Minute); a.Telemetry().Rewind.Frames < frames+1; {
		must(t, w.Tick())
		a.Sync()
		if time.Now().After(deadline) {
			t.Fatalf("no frames after the copy went: %+v", a.Telemetry().Rewind)
		}
		time.Sleep(time.Millisecond)
	}
}

// ringWorld is a world of 2,000 entities and an agent whose ring records
// at hz, closed when the test ends.
func ringWorld(t *testing.T, hz float64) (*ecs.World, *Agent) {
	t.Helper()
	w := ecs.NewWorld()
	spawn := ecs.NewMap2[Position, Health](w)
	for i := range 2000 {
		spawn.Spawn(Position{X: float64(i)}, Health{HP: i})
	}
	a := New(w, Options{Addr: "127.0.0.1:0", RewindHz: hz})
	t.Cleanup(func() { must(t, a.Close()) })
	return w, a
}

// syncUntilCopy steps the world until the ring holds a frame and a world
// copy.
func syncUntilCopy(t *testing.T, w *ecs.World, a *Agent) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		must(t, w.Tick())
		a.Sync()
		if rw := a.Telemetry().Rewind; rw != nil && rw.Frames > 0 && rw.Copy > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ring says %+v after a minute", a.Telemetry().Rewind)
		}
		time.Sleep(time.Millisecond)
	}
}
