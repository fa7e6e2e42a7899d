package ui

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestEventsPaneOpensTheEntityAnEventNames(t *testing.T) {
	c, _, nav := fixture()
	p := sized(&eventsPane{common: c}, 100, 20)
	mustContain(t, p.View(), "Attack", "Target:7v2")
	pressPane(p, "enter") // the queue's line: nothing to open
	if len(nav.opened) != 0 || len(nav.flashes) != 1 {
		t.Fatalf("enter on a queue opened %v", nav.opened)
	}
	pressPane(p, "j", "enter") // the first event: By is none, Target is 7v2
	if len(nav.opened) != 1 || nav.opened[0] != protocol.MakeEntityID(7, 2) {
		t.Fatalf("enter on the event opened %v, want 7v2", nav.opened)
	}
	pressPane(p, "j", "enter") // the second names no entity
	if len(nav.opened) != 1 {
		t.Fatalf("an event without an entity opened %v", nav.opened)
	}
	c.events = nil
	mustContain(t, p.View(), "no event queues")
}
