package ecs

import (
	"errors"
	"strings"
	"testing"
)

func TestCommandsApplyInOrder(t *testing.T) {
	w := NewWorld()
	pos, hp := NewMap[Position](w), NewMap[Health](w)
	c := w.NewCommands("test")
	e := c.Spawn()
	if w.Alive(e) {
		t.Fatal("a queued spawn is alive before Apply")
	}
	AddLater(c, e, Position{X: 1})
	SetLater(c, e, Position{X: 2}) // after the add: wins
	AddLater(c, e, Health{HP: 5})
	RemoveLater[Health](c, e)
	AddLater(c, e, Health{HP: 7})
	if c.Len() != 6 {
		t.Errorf("Len = %d", c.Len())
	}
	if err := c.Apply(); err != nil {
		t.Fatal(err)
	}
	if !w.Alive(e) || pos.Read(e).X != 2 || hp.Read(e).HP != 7 {
		t.Errorf("after apply: alive=%v pos=%+v hp=%+v", w.Alive(e), pos.Read(e), hp.Read(e))
	}
	if c.Len() != 0 {
		t.Error("Apply did not empty the buffer")
	}
}

func TestCommandsOnEntityDespawnedEarlierInBuffer(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	e := w.Spawn()
	other := w.Spawn()
	c := w.NewCommands("test")
	c.Despawn(e)
	AddLater(c, e, Position{X: 1}) // e is gone by then
	SetLater(c, e, Position{X: 2})
	c.Despawn(e)
	AddLater(c, other, Position{X: 3}) // still applied
	err := c.Apply()
	if err == nil || !strings.Contains(err.Error(), "3 queued commands skipped") || !errors.Is(err, ErrNotAlive) {
		t.Errorf("err = %v", err)
	}
	if w.Alive(e) || pos.Read(other).X != 3 {
		t.Error("commands after the failing ones were not applied")
	}
}

func TestReservedHandlesDoNotCollide(t *testing.T) {
	w := NewWorld()
	c := w.NewCommands("test")
	queued := c.Spawn()
	direct := w.Spawn() // must not take the reserved slot
	if direct.Index() == queued.Index() {
		t.Fatalf("direct spawn %v took the reserved slot of %v", direct, queued)
	}
	must(t, w.Despawn(direct))
	again := w.Spawn()
	must(t, c.Apply())
	if !w.Alive(queued) || !w.Alive(again) || w.Len() != 2 {
		t.Errorf("queued %v alive=%v, again %v alive=%v, Len %d", queued, w.Alive(queued), again, w.Alive(again), w.Len())
	}
	seen := map[uint32]bool{}
	for i := 0; i < 200; i++ {
		e := c.Spawn()
		if seen[e.Index()] {
			t.Fatalf("slot %d handed out twice", e.Index())
		}
		seen[e.Index()] = true
	}
	must(t, c.Apply())
	if w.Len() != 202 {
		t.Errorf("Len = %d, want 202", w.Len())
	}
}

func TestTickAppliesWorldCommands(t *testing.T) {
	w := NewWorld()
	e := w.Commands().Spawn()
	it := NewQuery1[Position](w).Iter() // world locked: the buffer is the way
	AddLater(w.Commands(), e, Position{X: 9})
	it.Close()
	if err := w.Tick(); err != nil {
		t.Fatal(err)
	}
	if NewMap[Position](w).Read(e).X != 9 || w.Frame() != 1 {
		t.Error("Tick did not apply the world's commands")
	}
}

// TestQueuedExchangeAppliesWithoutAllocating: a command buffer that
// switches an entity's state back and forth allocates nothing once warm
// (a game queues such switches every frame).
func TestQueuedExchangeAppliesWithoutAllocating(t *testing.T) {
	type Idle struct{ Since int }
	type Busy struct{ Since int }
	w := NewWorld()
	idle, busy := NewMap[Idle](w), NewMap[Busy](w)
	e := w.Spawn()
	must(t, idle.Add(e, Idle{}))
	c := w.NewCommands("switcher")
	idleID, busyID := ComponentIDOf[Idle](w), ComponentIDOf[Busy](w)
	flip := func() {
		if idle.Has(e) {
			ExchangeLater(c, e, Busy{1}, idleID)
		} else {
			ExchangeLater(c, e, Idle{2}, busyID)
		}
		if err := c.Apply(); err != nil {
			t.Fatal(err)
		}
	}
	flip()
	flip()
	if n := testing.AllocsPerRun(100, flip); n != 0 {
		t.Fatalf("a queued exchange and its apply allocate %.1f times", n)
	}
	if !busy.Has(e) && !idle.Has(e) {
		t.Fatal("the entity lost its state")
	}
}
