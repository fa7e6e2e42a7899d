package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// TestTelemetrySaysWhatTheRingHolds: once the in-memory recording holds a
// frame, the agent's telemetry gives its frames' bytes and the world copy
// it codes frames against, at least the bytes of the world's values.
func TestTelemetrySaysWhatTheRingHolds(t *testing.T) {
	w := ecs.NewWorld()
	spawn := ecs.NewMap2[Position, Health](w)
	for i := range 2000 {
		spawn.Spawn(Position{X: float64(i)}, Health{HP: i})
	}
	a := New(w, Options{Addr: "127.0.0.1:0", RewindHz: 1000})
	defer func() { must(t, a.Close()) }()
	if rw := a.Telemetry().Rewind; rw != nil {
		t.Fatalf("before the first Sync the ring says %+v", rw)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		must(t, w.Tick())
		a.Sync()
		if rw := a.Telemetry().Rewind; rw != nil && rw.Frames > 0 && rw.Copy > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ring says %+v after a minute", a.Telemetry().Rewind)
		}
		time.Sleep(time.Millisecond)
	}
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
