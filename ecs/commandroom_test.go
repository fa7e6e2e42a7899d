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
