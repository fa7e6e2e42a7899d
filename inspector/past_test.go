package inspector

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestALateWatchpointAnswersForThePast: on the demo's starve bug, a
// watchpoint set after the bug struck answers, with its reply, for the
// past the agent keeps: the first victim grazing set to -40, which died of
// it in the same frame, at the tick an early watchpoint saw it made.
func TestALateWatchpointAnswersForThePast(t *testing.T) {
	g := startDemo(t, 2000, 0, Options{RewindHz: 1000})
	c := dial(t, &game{agent: g.agent}, protocol.Hello{})
	var err error
	g.onGame(t, func() *ecs.Image { err = g.sim.SetBug("starve"); return nil })
	if err != nil {
		t.Fatal(err)
	}
	early := c.reply(&protocol.Watch{Expr: "Energy.Value<-20", Log: true})
	wantOK(t, "the early watchpoint", early)
	hit := c.awaitHit()
	if hit.By != "grazing" {
		t.Fatalf("the early watchpoint's hit: %+v", hit)
	}
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Tick > hit.Tick+5 })
	late := c.reply(&protocol.Watch{Expr: "Energy.Value<-20", Log: true})
	wantOK(t, "the late watchpoint", late)
	if want := fmt.Sprintf("it held for %v as it died at tick %d", hit.Entity, hit.Tick); !strings.Contains(late.Message, want) {
		t.Fatalf("the late watchpoint's reply: %q; want it to say %q", late.Message, want)
	}
	if !strings.Contains(late.Message, "Energy = ") || !strings.Contains(late.Message, "-40") {
		t.Errorf("the late watchpoint's reply does not give the value: %q", late.Message)
	}
	t.Log(late.Message)
	// A value that holds for the living: the first recorded tick.
	rr := c.summaryWhere(func(s *protocol.Summary) bool { return s.Agent.Rewind != nil && s.Agent.Rewind.Frames > 0 }).Agent.Rewind
	// The searches of the recorded ticks take a fifth of a core at most:
	// one set just after another's is told so, and set again.
	living := c.reply(&protocol.Watch{Expr: "Energy.Value>-1000000", Log: true})
	for deadline := time.Now().Add(10 * time.Second); strings.Contains(living.Message, "not searched") && time.Now().Before(deadline); {
		wantOK(t, "unwatch", c.reply(&protocol.Unwatch{Watch: living.Watch}))
		time.Sleep(50 * time.Millisecond)
		living = c.reply(&protocol.Watch{Expr: "Energy.Value>-1000000", Log: true})
	}
	wantOK(t, "a watchpoint on the living", living)
	if want := fmt.Sprintf("first held at tick %d", rr.From); !strings.Contains(living.Message, want) {
		t.Errorf("a watchpoint true of every animal: %q; want it to say %q (the ring holds %d-%d)", living.Message, want, rr.From, rr.To)
	}
}
