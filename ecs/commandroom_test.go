package ecs

import "testing"

// TestCommandsGiveBackABurstsRoom: a buffer that once queued 100,000
// commands, then a few a frame, gives that room back within 40 applies, and
// a buffer busy every frame, or bursting every 10 applies, keeps its room.
func TestCommandsGiveBackABurstsRoom(t *testing.T) {
	w := NewWorld()
	pos := NewMap[struct{ X, Y float32 }](w)
	var ents []Entity
	for range 100_000 {
		ents = append(ents, w.Spawn())
	}
	burst, busy, often := w.NewCommands("burst"), w.NewCommands("busy"), w.NewCommands("often")
	for _, e := range ents {
		AddLater(burst, e, struct{ X, Y float32 }{1, 2})
	}
	must(t, burst.Apply())
	if cap(burst.ops) < 100_000 {
		t.Fatalf("the burst's buffer holds room for %d", cap(burst.ops))
	}
	const applies = 40
	for f := range applies {
		for _, e := range ents[:10] {
			SetLater(burst, e, struct{ X, Y float32 }{float32(f), 0})
		}
		for _, e := range ents[:20_000] {
			SetLater(busy, e, struct{ X, Y float32 }{float32(f), 0})
		}
		n := 10
		if f%10 == 0 {
			n = 50_000
		}
		for _, e := range ents[:n] {
			SetLater(often, e, struct{ X, Y float32 }{float32(f), 0})
		}
		must(t, burst.Apply())
		must(t, busy.Apply())
		must(t, often.Apply())
	}
	vals := burst.vals[pos.id].(*values[struct{ X, Y float32 }])
	if cap(burst.ops) > 4*minRoomKept || cap(vals.vals) > 4*minRoomKept {
		t.Fatalf("after %d applies of 10 commands, the burst's buffers keep room for %d commands and %d values", applies, cap(burst.ops), cap(vals.vals))
	}
	if cap(busy.ops) < 20_000 {
		t.Fatalf("a buffer queuing 20,000 commands every apply kept room for %d", cap(busy.ops))
	}
	if cap(often.ops) < 50_000 {
		t.Fatalf("a buffer queuing 50,000 commands every 10 applies kept room for %d", cap(often.ops))
	}
	if p := pos.Read(ents[5]); p == nil || p.X != float32(applies-1) {
		t.Fatalf("the last apply's value: %+v", p)
	}
}

// TestEventsGiveBackABurstsRoom: an event queue that carried 100,000
// events in one frame, then a few a frame, gives that room back within 40
// frames, still reading each frame's events and the last frame's; a queue
// busy every frame keeps its room.
func TestEventsGiveBackABurstsRoom(t *testing.T) {
	type hit struct{ N int }
	type tick struct{ N int }
	w := NewWorld()
	burst, busy := EventsOf[hit](w), EventsOf[tick](w)
	for i := range 100_000 {
		burst.Send(hit{i})
	}
	must(t, w.Tick())
	if cap(burst.previous) < 100_000 {
		t.Fatalf("the burst's buffer holds room for %d", cap(burst.previous))
	}
	const frames = 40
	for f := range frames {
		for i := range 10 {
			burst.Send(hit{f*10 + i})
		}
		for i := range 20_000 {
			busy.Send(tick{i})
		}
		if f < frames-1 {
			must(t, w.Tick())
		}
	}
	if c := cap(burst.previous) + cap(burst.current); c > 4*minRoomKept {
		t.Fatalf("after %d frames of 10 events, the burst's queue keeps room for %d", frames, c)
	}
	if cap(busy.previous) < 20_000 || cap(busy.current) < 20_000 {
		t.Fatalf("a queue carrying 20,000 events a frame kept room for %d and %d", cap(busy.previous), cap(busy.current))
	}
	var got []int
	for ev := range burst.All() {
		got = append(got, ev.N)
	}
	if len(got) != 20 || got[0] != (frames-2)*10 || got[19] != frames*10-1 {
		t.Fatalf("the queue reads %v, not the last two frames' 20 events", got)
	}
}
