package inspector

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestSummaryMatchesTheWorld(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{})
	if r := c.reply(&protocol.Subscribe{What: protocol.SubSummary, Hz: 50}); !r.OK {
		t.Fatal(r.Message)
	}
	s := c.summary()
	if !s.Full || s.Entities != 20 || s.Stats.Alive != 20 || len(s.Components) < 5 || len(s.Systems) != 1 || s.Systems[0].Name != "movement" {
		t.Errorf("summary = %+v", s)
	}
	next := c.summary()
	if next.Full || next.Tick <= s.Tick {
		t.Errorf("second frame should be a delta at a later tick: full=%v tick %d after %d", next.Full, next.Tick, s.Tick)
	}
	if next.Agent.Clients != 1 {
		t.Errorf("telemetry clients = %d", next.Agent.Clients)
	}
}

func TestPagesFollowTheWorld(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{})
	if r := c.reply(&protocol.Subscribe{What: protocol.SubPage, Hz: 50, Query: "Health !Frozen Health.HP<5", Limit: 10}); !r.OK {
		t.Fatal(r.Message)
	}
	first := c.await(func(m protocol.Message) bool { _, ok := m.(*protocol.Page); return ok }).(*protocol.Page)
	if !first.Full || first.Total != 4 || len(first.Rows) != 4 { // HP 0,2,3,4 (1 is frozen)
		t.Fatalf("page = total %d, %d rows", first.Total, len(first.Rows))
	}
	g.on(func() { _ = ecs.NewMap[Health](g.w).Set(g.ents[3], Health{HP: 4}) })
	delta := c.await(func(m protocol.Message) bool {
		p, ok := m.(*protocol.Page)
		return ok && !p.Full && len(p.Rows) > 0
	}).(*protocol.Page)
	if len(delta.Rows) != 1 || delta.Rows[0].Entity != wire(g.ents[3]) {
		t.Errorf("delta rows = %+v", delta.Rows)
	}
	r := c.reply(&protocol.Subscribe{What: protocol.SubPage, Query: "Health Health.HP<"})
	if r.OK || r.Code != protocol.ErrBadQuery || !strings.Contains(r.Message, "column 18") {
		t.Errorf("bad query reply = %+v", r)
	}
	r = c.reply(&protocol.Subscribe{What: protocol.SubPage, Query: "Helth"})
	if r.OK || !strings.Contains(r.Message, "no component named Helth") {
		t.Errorf("unknown component reply = %+v", r)
	}
}

func TestEveryCommand(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{})
	e := g.ents[4]
	ok := func(m protocol.Request) *protocol.Reply {
		t.Helper()
		r := c.reply(m)
		if !r.OK {
			t.Fatalf("%T: %s %s", m, r.Code, r.Message)
		}
		return r
	}
	ok(&protocol.SetField{Entity: wire(e), Path: "Position.Y", Value: protocol.FloatValue(3.5)})
	ok(&protocol.AddComponent{Entity: wire(e), Component: "Name", Value: protocol.MapValue(protocol.Field{Name: "Value", Value: protocol.StringValue("bob")})})
	ok(&protocol.AddComponent{Entity: wire(e), Component: "Frozen"})
	ok(&protocol.RemoveComponent{Entity: wire(e), Component: "Velocity"})
	spawned := ok(&protocol.Spawn{Components: []protocol.ComponentValue{
		{Component: "Position", Value: protocol.MapValue(protocol.Field{Name: "X", Value: protocol.IntValue(7)})},
		{Component: "Frozen"},
	}}).Entity
	ok(&protocol.Despawn{Entity: wire(g.ents[0]), Recursive: true}) // takes its child ents[2]
	g.on(func() {
		if p := ecs.NewMap[Position](g.w).Read(e); p == nil || p.Y != 3.5 {
			t.Errorf("set field: %+v", p)
		}
		if n := ecs.NewMap[Name](g.w).Read(e); n == nil || n.Value != "bob" {
			t.Errorf("add component: %+v", n)
		}
		if !ecs.NewMap[Frozen](g.w).Has(e) || ecs.NewMap[Velocity](g.w).Has(e) {
			t.Error("add/remove tag")
		}
		se := ecs.EntityOf(spawned.Index(), spawned.Generation())
		if p := ecs.NewMap[Position](g.w).Read(se); p == nil || p.X != 7 {
			t.Errorf("spawn: %v %+v", se, p)
		}
		if g.w.Alive(g.ents[0]) || g.w.Alive(g.ents[2]) {
			t.Error("recursive despawn left the parent or child")
		}
	})
	detailID := c.request(&protocol.GetEntity{Entity: wire(e)})
	det := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == detailID }).(*protocol.Detail)
	if !det.Alive || len(det.Components) != 4 {
		t.Errorf("detail = %+v", det)
	}
	snapID := c.request(&protocol.SnapshotRequest{})
	snap := c.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Snapshot); return ok && s.ID == snapID }).(*protocol.Snapshot)
	n := 0
	for _, tb := range snap.Tables {
		if !(len(tb.Components) == 1 && snap.Components[tb.Components[0]].Storage == "sparse") {
			n += len(tb.Entities)
		}
	}
	if n != snap.Stats.Alive || n != 19 {
		t.Errorf("snapshot holds %d entities, stats %d", n, snap.Stats.Alive)
	}
}

func TestFailedCommandsSayWhyAndChangeNothing(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{})
	var stale ecs.Entity
	g.on(func() {
		stale = g.ents[5]
		if err := g.w.Despawn(stale); err != nil {
			t.Error(err) // on the game goroutine: no Fatal
		}
		g.w.Spawn() // takes slot 5 with a new generation
	})
	e := wire(g.ents[6])
	cases := []struct {
		m    protocol.Request
		code string
		msg  string
	}{
		{&protocol.SetField{Entity: wire(stale), Path: "Position.X", Value: protocol.FloatValue(1)}, protocol.ErrStale,
			"entity " + stale.String() + " is stale: slot 5 is now generation 2"},
		{&protocol.SetField{Entity: e, Path: "Position.Z", Value: protocol.FloatValue(1)}, protocol.ErrNotFound, "component Position has no field Z"},
		{&protocol.SetField{Entity: e, Path: "Health.HP", Value: protocol.StringValue("abc")}, protocol.ErrBadValue, `Health.HP wants a number, got "abc"`},
		{&protocol.AddComponent{Entity: e, Component: "Armor"}, protocol.ErrNotFound, "no component named Armor"},
		{&protocol.Spawn{Components: []protocol.ComponentValue{{Component: "Position"}, {Component: "Health", Value: protocol.MapValue(protocol.Field{Name: "HP", Value: protocol.StringValue("x")})}}}, protocol.ErrBadValue, "Health.HP wants a number"},
		{&protocol.Despawn{Entity: wire(stale)}, protocol.ErrStale, "is stale"},
		{&protocol.Step{N: 0}, protocol.ErrBadValue, "1 to 1048576 frames"},
		{&protocol.Unsubscribe{Sub: 99}, protocol.ErrNotFound, "no subscription 99"},
	}
	var before int
	g.on(func() { before = g.w.Len() })
	for _, tc := range cases {
		r := c.reply(tc.m)
		if r.OK || r.Code != tc.code || !strings.Contains(r.Message, tc.msg) {
			t.Errorf("%T: %s %q; want %s %q", tc.m, r.Code, r.Message, tc.code, tc.msg)
		}
	}
	g.on(func() {
		if g.w.Len() != before {
			t.Errorf("a failed spawn left an entity: %d, was %d", g.w.Len(), before)
		}
		if p := ecs.NewMap[Health](g.w).Read(g.ents[6]); p.HP != 6 {
			t.Error("a failed set changed the value")
		}
	})
}

func TestReadOnly(t *testing.T) {
	g := startGame(t, Options{ReadOnly: true})
	c := dial(t, g, protocol.Hello{})
	for _, m := range []protocol.Request{
		&protocol.SetField{Entity: wire(g.ents[0]), Path: "Health.HP", Value: protocol.IntValue(1)},
		&protocol.Spawn{}, &protocol.Despawn{Entity: wire(g.ents[0])}, &protocol.Pause{},
		&protocol.AddComponent{Entity: wire(g.ents[0]), Component: "Frozen"},
		&protocol.RemoveComponent{Entity: wire(g.ents[0]), Component: "Health"}, &protocol.Step{N: 1}, &protocol.Resume{},
	} {
		if r := c.reply(m); r.OK || r.Code != protocol.ErrReadOnly {
			t.Errorf("%T in read-only mode: %+v", m, r)
		}
	}
	if r := c.reply(&protocol.Subscribe{What: protocol.SubSummary}); !r.OK {
		t.Error("reading refused in read-only mode")
	}
	g.on(func() {
		if g.w.Len() != 20 || ecs.NewMap[Health](g.w).Read(g.ents[0]).HP != 0 {
			t.Error("read-only world changed")
		}
	})
}

func TestPauseStepResumeAcrossClients(t *testing.T) {
	g := startGame(t, Options{})
	a := dial(t, g, protocol.Hello{})
	b := dial(t, g, protocol.Hello{})
	b.reply(&protocol.Subscribe{What: protocol.SubSummary, Hz: 60})
	if r := a.reply(&protocol.Pause{}); !r.OK {
		t.Fatal(r.Message)
	}
	paused := b.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Summary); return ok && s.Paused })
	at := g.frames.Load()
	time.Sleep(50 * time.Millisecond)
	if g.frames.Load() != at {
		t.Fatalf("the game ran %d frames while paused", g.frames.Load()-at)
	}
	_ = paused
	// b steps 3 frames: exactly 3 run, then the game is paused again.
	if r := b.reply(&protocol.Step{N: 3}); !r.OK {
		t.Fatal(r.Message)
	}
	deadline := time.Now().Add(2 * time.Second)
	for g.frames.Load() < at+3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if ran := g.frames.Load() - at; ran != 3 {
		t.Fatalf("step 3 ran %d frames", ran)
	}
	// Commands still apply while paused.
	if r := a.reply(&protocol.SetField{Entity: wire(g.ents[7]), Path: "Health.HP", Value: protocol.IntValue(77)}); !r.OK {
		t.Fatal(r.Message)
	}
	a.reply(&protocol.Resume{})
	deadline = time.Now().Add(2 * time.Second)
	for g.frames.Load() < at+10 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if g.frames.Load() < at+10 {
		t.Fatal("resume did not release the game")
	}
	// Pause again, then every client leaves: the game resumes.
	a.reply(&protocol.Pause{})
	time.Sleep(20 * time.Millisecond)
	a.conn.Close()
	b.conn.Close()
	at = g.frames.Load()
	deadline = time.Now().Add(2 * time.Second)
	for g.frames.Load() < at+5 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if g.frames.Load() < at+5 {
		t.Fatal("the game stayed paused after the last client left")
	}
	g.on(func() {
		if ecs.NewMap[Health](g.w).Read(g.ents[7]).HP != 77 {
			t.Error("a command sent while paused was lost")
		}
	})
}

// TestFrameFiguresSayWhatTheyAre: the summary gives the game's work in
// its last frame (its schedule's run) apart from the interval between
// frames, which also holds the loop's wait; the work is part of the
// interval.
func TestFrameFiguresSayWhatTheyAre(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{})
	c.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 20})
	s := c.summaryWhere(func(s *protocol.Summary) bool { return s.WorkNs > 0 && s.FrameNs > 0 }) // the first frame has no interval yet
	if s.FrameNs < s.WorkNs {
		t.Fatalf("the frame's work %d ns is over the interval between frames %d ns", s.WorkNs, s.FrameNs)
	}
}

// TestSkippedCommandsAreShown: a system whose queued commands are skipped
// (here a remove of a component its entity lacks, every frame) is named
// with the count and the reason in the summary, and a skipped watchpoint
// stops the game naming it.
func TestSkippedCommandsAreShown(t *testing.T) {
	g := startGame(t, Options{}, func(g *game, s *ecs.Schedule) {
		careless := g.ents[5] // not Frozen
		s.Add("careless", func(_ *ecs.World, c *ecs.Commands) { ecs.RemoveLater[Frozen](c, careless) })
	})
	c := dial(t, g, protocol.Hello{})
	c.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 20})
	s := c.summaryWhere(func(s *protocol.Summary) bool {
		for _, sys := range s.Systems {
			if sys.Name == "careless" && sys.Skipped > 0 {
				return true
			}
		}
		return false
	})
	for _, sys := range s.Systems {
		switch {
		case sys.Name == "careless" && (len(sys.SkippedWhy) == 0 || !strings.Contains(sys.SkippedWhy[len(sys.SkippedWhy)-1].Why, "has no Frozen to remove")):
			t.Fatalf("careless's reasons: %+v", sys.SkippedWhy)
		case sys.Name == "movement" && sys.Skipped != 0:
			t.Fatalf("movement queued nothing, yet %d skipped", sys.Skipped)
		}
	}
	wantOK(t, "watch", c.reply(&protocol.Watch{Expr: "skipped careless"}))
	h := c.awaitHit()
	if h.By != "careless" || !h.Paused || h.Matches < 1 || !strings.Contains(h.Text, "has no Frozen to remove") {
		t.Fatalf("the skipped watchpoint's hit: %+v", h)
	}
	if r := c.reply(&protocol.Watch{Expr: "skipped nobody"}); r.OK || !strings.Contains(r.Message, "no system named nobody") {
		t.Fatalf("a skipped watchpoint on a system that is not there: %+v", r)
	}
}
