package inspector

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestBatchOperationsAreSeenAsSingleOnes: a batch exchange applied from a
// command buffer and a batch despawn are journaled entity by entity, fire
// structural watchpoints, name who did it, and leave provenance as the
// single operations would.
func TestBatchOperationsAreSeenAsSingleOnes(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "batch"})
	add := c.reply(&protocol.Watch{Expr: "add Frozen", Log: true})
	gone := c.reply(&protocol.Watch{Expr: "despawn " + wire(g.ents[9]).String(), Log: true})
	if !add.OK || !gone.OK {
		t.Fatalf("Watch: %+v %+v", add, gone)
	}
	var health, frozen ecs.ComponentID
	g.on(func() {
		health, frozen = ecs.ComponentIDOf[Health](g.w), ecs.ComponentIDOf[Frozen](g.w)
		cmds := g.w.NewCommands("sleeper")
		cmds.ExchangeWhere(ecs.Filter{With: []ecs.ComponentID{health}}, []ecs.ComponentID{frozen}, nil)
		if err := cmds.Apply(); err != nil {
			t.Error(err)
		}
	})
	// Nineteen entities got Frozen (one had it): the frame's first fires,
	// by the buffer's owner, as for single adds.
	hit := c.awaitHit()
	if hit.Watch != add.Watch || hit.Component != "Frozen" || !strings.Contains(hit.By, "sleeper") {
		t.Fatalf("the first hit: %+v", hit)
	}
	var added int
	g.on(func() {
		for _, e := range g.w.Inspect().Journal() {
			if e.Op == ecs.OpAdd && e.Component == int(frozen) && e.System == "sleeper" {
				added++
			}
		}
	})
	if added != 19 {
		t.Fatalf("the journal has %d additions of Frozen by sleeper, want 19", added)
	}
	id := c.request(&protocol.GetEntity{Entity: wire(g.ents[5])})
	d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
	found := false
	for _, cv := range d.Components {
		if cv.Component == "Frozen" {
			found = true
			if cv.Added == nil || !strings.Contains(cv.Added.By, "sleeper") {
				t.Fatalf("Frozen's provenance: %+v, want added by sleeper", cv.Added)
			}
		}
	}
	if !found {
		t.Fatalf("no Frozen on %v after the batch: %+v", g.ents[5], d.Components)
	}
	var despawned int
	g.on(func() { despawned = g.w.DespawnWhere(ecs.Filter{With: []ecs.ComponentID{frozen}}) })
	if despawned != 20 {
		t.Fatalf("DespawnWhere despawned %d, want all 20", despawned)
	}
	hit = c.await(func(m protocol.Message) bool { h, ok := m.(*protocol.WatchHit); return ok && h.Watch == gone.Watch }).(*protocol.WatchHit)
	if hit.Entity != wire(g.ents[9]) || !strings.Contains(hit.Text, "despawn") {
		t.Fatalf("despawn hit: %+v", hit)
	}
}
