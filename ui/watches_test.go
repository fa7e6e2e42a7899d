package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestWatchesPane(t *testing.T) {
	c, src, nav := fixture()
	p := sized(&watchesPane{common: c}, 120, 20)
	mustContain(t, p.View(), "none set: w sets one")
	c.summary.Watches = []protocol.Watchpoint{{ID: 1, Expr: "Energy.Value<0", Kind: "value", On: true, Hits: 1},
		{ID: 2, Expr: "frame > 20ms", Kind: "frame", Log: true, On: false}}
	v := protocol.FloatValue(-40)
	e := protocol.MakeEntityID(433, 1)
	p.Update(watchHitMsg{&protocol.WatchHit{Watch: 1, Tick: 477, Entity: e, By: "grazing", Value: &v, Paused: true,
		Text: "Energy.Value<0: Energy of 433v1, written by grazing"}})
	mustContain(t, p.View(), "value   pauses", "frame   off", "tick 477", "written by grazing", "= -40")
	pressPane(p, "enter") // the first watchpoint: turned off
	if en, ok := src.reqs[len(src.reqs)-1].(*protocol.EnableWatch); !ok || en.Watch != 1 || en.On {
		t.Fatalf("enter on watchpoint 1 sent %+v", src.reqs)
	}
	pressPane(p, "j", "x") // the second: removed
	if un, ok := src.reqs[len(src.reqs)-1].(*protocol.Unwatch); !ok || un.Watch != 2 {
		t.Fatalf("x on watchpoint 2 sent %+v", src.reqs)
	}
	pressPane(p, "j", "enter") // the hit: its entity
	if len(nav.opened) != 1 || nav.opened[0] != e {
		t.Fatalf("enter on the hit opened %v", nav.opened)
	}
	pressPane(p, "x") // on the hit: its watchpoint goes
	if un, ok := src.reqs[len(src.reqs)-1].(*protocol.Unwatch); !ok || un.Watch != 1 {
		t.Fatalf("x on a hit of watchpoint 1 sent %+v", src.reqs[len(src.reqs)-1])
	}
	// w: a prompt that checks the form as typed and sends a Watch.
	watchPrompt(c, "")
	pr := nav.pushed[len(nav.pushed)-1].(*prompt)
	pr.input.SetValue("system hunt")
	if pr.Update(keyMsg("enter")); pr.err == "" {
		t.Fatal("a bad watchpoint was taken")
	}
	pr.input.SetValue("--log Energy.Value<-1")
	pr.Update(keyMsg("enter"))
	if w, ok := src.reqs[len(src.reqs)-1].(*protocol.Watch); !ok || w.Expr != "Energy.Value<-1" || !w.Log || w.Keep {
		t.Fatalf("the prompt sent %+v", src.reqs[len(src.reqs)-1])
	}
	// --keep: one that stays after this UI quits, as exec watch takes it.
	watchPrompt(c, "")
	pr = nav.pushed[len(nav.pushed)-1].(*prompt)
	pr.input.SetValue("--log --keep Energy.Value<-2")
	pr.Update(keyMsg("enter"))
	if w, ok := src.reqs[len(src.reqs)-1].(*protocol.Watch); !ok || w.Expr != "Energy.Value<-2" || !w.Log || !w.Keep {
		t.Fatalf("the prompt sent %+v", src.reqs[len(src.reqs)-1])
	}
	// A read-only session sets log-only ones without being asked.
	c.readOnly = true
	watchPrompt(c, "")
	pr = nav.pushed[len(nav.pushed)-1].(*prompt)
	pr.input.SetValue("Energy.Value<-3")
	pr.Update(keyMsg("enter"))
	if w, ok := src.reqs[len(src.reqs)-1].(*protocol.Watch); !ok || w.Expr != "Energy.Value<-3" || !w.Log {
		t.Fatalf("a read-only session's prompt sent %+v", src.reqs[len(src.reqs)-1])
	}
}

// TestSuspendedWatchSaysWhy: a watchpoint the agent suspended says so and
// why, and enter asks for it to be checked again.
func TestSuspendedWatchSaysWhy(t *testing.T) {
	c, src, _ := fixture()
	p := sized(&watchesPane{common: c}, 160, 20)
	c.summary.Watches = []protocol.Watchpoint{{ID: 3, Expr: "Position.X<-5", Kind: "value", Log: true, On: true,
		Suspended: "a check would test 100000 rows of Position (1 terms): over what is left of its client's share"}}
	mustContain(t, p.View(), "SUSP", "suspended (enter tries again)", "100000 rows of Position")
	pressPane(p, "enter")
	if en, ok := src.reqs[len(src.reqs)-1].(*protocol.EnableWatch); !ok || en.Watch != 3 || !en.On {
		t.Fatalf("enter on a suspended watchpoint sent %+v", src.reqs)
	}
}

// The hits of a broad watch grouped by writer, the narrower watch they
// point to (enter sets it), a group's entity opened, and / filtering the
// hits list.
func TestWatchesPaneGroupsAndSuggests(t *testing.T) {
	c, src, nav := fixture()
	p := sized(&watchesPane{common: c}, 160, 20)
	victim := protocol.MakeEntityID(103, 1)
	c.summary.Watches = []protocol.Watchpoint{{ID: 1, Expr: "Energy.Value<0", Kind: "value", Log: true, On: true, Hits: 1808, Groups: []protocol.HitGroup{
		{By: "hunger", Component: "Energy", Hits: 1800, First: 10, Last: 900, Min: -0.04, Max: -0.0001, Numeric: true, Entity: protocol.MakeEntityID(7, 1)},
		{By: "grazing", Component: "Energy", Hits: 8, First: 120, Last: 884, Min: -40, Max: -40, Numeric: true, Entity: victim}}}}
	for i, by := range []string{"hunger", "grazing", "hunger"} {
		p.Update(watchHitMsg{&protocol.WatchHit{Watch: 1, Tick: uint64(100 + i), Entity: protocol.MakeEntityID(uint32(i), 1), By: by,
			Text: "Energy.Value<0: Energy of x, written by " + by}})
	}
	mustContain(t, p.View(), "by hunger on Energy: 1800 hits, ticks 10-900, Value -0.04 .. -0.0001",
		"by grazing on Energy: 8 hits, ticks 120-884, Value -40 .. -40, newest 103v1",
		"⇒ narrower: Energy.Value<-20 — only grazing's hits (8) reach -20")
	pressPane(p, "j", "j", "enter") // the grazing group: its newest entity
	if len(nav.opened) != 1 || nav.opened[0] != victim {
		t.Fatalf("enter on the grazing group opened %v", nav.opened)
	}
	pressPane(p, "j", "enter") // the suggestion: set, pausing
	if w, ok := src.reqs[len(src.reqs)-1].(*protocol.Watch); !ok || w.Expr != "Energy.Value<-20" || w.Log {
		t.Fatalf("enter on the suggestion sent %+v", src.reqs)
	}
	p.filter = "grazing"
	v := p.View()
	mustContain(t, v, "1 of 3 hits contain \"grazing\"", "tick 101")
	if all := strings.Join(v, "\n"); strings.Contains(all, "tick 100 ") || strings.Contains(all, "tick 102 ") {
		t.Fatalf("the filter let other hits through:\n%s", all)
	}
}
