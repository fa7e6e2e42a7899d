package inspector

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestRingKeepsNoWorldTooBigForIt: a world whose keyframe takes more than
// a quarter of RewindBytes is not held in memory (two frames of a million
// entities in 64 MiB cost the process 450 MB and rewind to two ticks): the
// summary's rewind range says why and what budget would hold it, a Rewind
// is refused with the same words, and once the world shrinks to fit the
// ring starts and a Rewind restores from it; grown again, the ring ends.
func TestRingKeepsNoWorldTooBigForIt(t *testing.T) {
	g := bigGame(t, 4000, Options{RewindBytes: 256 << 10}) // 4,000 rows of 40 bytes and their handles: 192 KB
	c := dial(t, g, protocol.Hello{})
	off := c.summaryWhere(func(s *protocol.Summary) bool { return s.Agent.Rewind != nil && s.Agent.Rewind.Short != "" })
	if rw := off.Agent.Rewind; rw.Frames != 0 || !strings.Contains(rw.Short, "no rewind") || !strings.Contains(rw.Short, "Options.RewindBytes of") {
		t.Fatalf("with the world too big, the rewind range says %+v", rw)
	}
	r := c.reply(&protocol.Rewind{Tick: 1})
	if r.OK || r.Code != protocol.ErrState || !strings.Contains(r.Message, "no rewind: a keyframe of this world") {
		t.Fatalf("a rewind while the world is too big: %+v", r)
	}

	var big []ecs.Entity
	g.on(func() {
		for it := ecs.NewQuery1[Health](g.w).Iter(); it.Next(); {
			if len(big) < 3900 {
				big = append(big, it.Entity())
			}
		}
		for _, e := range big {
			must(t, g.w.Despawn(e))
		}
	})
	held := c.summaryWhere(func(s *protocol.Summary) bool {
		return s.Agent.Rewind != nil && s.Agent.Rewind.Frames > 0 && s.Agent.Rewind.Short == ""
	})
	wantOK(t, "rewind once the world fits", c.reply(&protocol.Rewind{Tick: held.Agent.Rewind.To}))
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == held.Agent.Rewind.To })
	wantOK(t, "resume", c.reply(&protocol.Resume{}))

	g.on(func() {
		ecs.NewMap3[Position, Velocity, Health](g.w).SpawnBatch(8000, func(i int, _ ecs.Entity, p *Position, v *Velocity, h *Health) {
			p.X, v.X, h.HP = float64(i), 1, i
		})
	})
	again := c.summaryWhere(func(s *protocol.Summary) bool {
		return s.Agent.Rewind != nil && s.Agent.Rewind.Frames == 0 && s.Agent.Rewind.Short != ""
	})
	if !strings.Contains(again.Agent.Rewind.Short, "256 KiB") {
		t.Fatalf("grown again, the rewind range says %+v", again.Agent.Rewind)
	}
}

// TestRingStartsOnlyWithRoomToSpare: a running ring goes on while four
// keyframes fit its budget; a stopped one starts only when five do, so a
// world weighing near the line does not start and end it every second.
func TestRingStartsOnlyWithRoomToSpare(t *testing.T) {
	for _, c := range []struct {
		bytes   int64
		running bool
		fits    bool
	}{
		{256, true, true}, {257, true, false},
		{204, false, true}, {205, false, false}, {256, false, false},
	} {
		if why := ringTooBig(c.bytes, 1024, c.running); (why == "") != c.fits {
			t.Errorf("a world of %d bytes, a budget of 1024, running %v: %q", c.bytes, c.running, why)
		}
	}
}
