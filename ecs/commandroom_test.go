package ecs

import "testing"

// TestCommandsGiveBackABurstsRoom: a buffer that once queued 100,000
// commands, then a few a frame, gives that room back within a window of
// applies, and a buffer busy every frame keeps its room.
func TestCommandsGiveBackABurstsRoom(t *testing.T) {
	w := NewWorld()
	pos := NewMap[struct{ X, Y float32 }](w)
	var ents []Entity
	for range 100_000 {
		ents = append(ents, w.Spawn())
	}
	burst, busy := w.NewCommands("burst"), w.NewCommands("busy")
	for _, e := range ents {
		AddLater(burst, e, struct{ X, Y float32 }{1, 2})
	}
	must(t, burst.Apply())
	if cap(burst.ops) < 100_000 {
		t.Fatalf("the burst's buffer holds room for %d", cap(burst.ops))
	}
	for f := range 2 * roomWindow {
		for _, e := range ents[:10] {
			SetLater(burst, e, struct{ X, Y float32 }{float32(f), 0})
		}
		for _, e := range ents[:20_000] {
			SetLater(busy, e, struct{ X, Y float32 }{float32(f), 0})
		}
		must(t, burst.Apply())
		must(t, busy.Apply())
	}
	vals := burst.vals[pos.id].(*values[struct{ X, Y float32 }])
	if cap(burst.ops) > 4*minRoomKept || cap(vals.vals) > 4*minRoomKept {
		t.Fatalf("after %d applies of 10 commands, the burst's buffers keep room for %d commands and %d values", 2*roomWindow, cap(burst.ops), cap(vals.vals))
	}
	if cap(busy.ops) < 20_000 {
		t.Fatalf("a buffer queuing 20,000 commands every apply kept room for %d", cap(busy.ops))
	}
	if p := pos.Read(ents[5]); p == nil || p.X != float32(2*roomWindow-1) {
		t.Fatalf("the last apply's value: %+v", p)
	}
}
