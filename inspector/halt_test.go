package inspector

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// startSim serves the demo's ecosystem with the starve bug, its loop on
// its own goroutine as a game's would be.
func startSim(t *testing.T, n int) *game {
	t.Helper()
	sim := ecosystem.New(n, 7)
	if err := sim.SetBug("starve"); err != nil {
		t.Fatal(err)
	}
	g := &game{t: t, w: sim.World, do: make(chan func()), stop: make(chan struct{}), done: make(chan struct{})}
	g.agent = New(sim.World, Options{Addr: "127.0.0.1:0", Game: "ecosystem", Schedule: sim.Schedule})
	if err := g.agent.Start(); err != nil {
		t.Fatal(err)
	}
	g.loop(time.Millisecond, sim.Step)
	return g
}

// stoppedByStarve serves the demo with the starve bug, sets a pausing
// watchpoint on its value and waits until the game stops inside the frame
// at the write; the client, and the hit.
func stoppedByStarve(t *testing.T) (*game, *testClient, *protocol.WatchHit) {
	t.Helper()
	g := startSim(t, 400)
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "debugger"})
	if r := c.reply(&protocol.Watch{Expr: "Energy.Value<-30"}); !r.OK {
		t.Fatalf("Watch: %+v", r)
	}
	stop := c.awaitHit()
	if stop.By != "grazing" || !stop.Paused {
		t.Fatalf("the stop: %+v", stop)
	}
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Halt != nil })
	return g, c, stop
}

// TestBreakAtTheWrite: a pausing watchpoint on the starve bug's value stops
// the game inside the frame, right after grazing wrote -40 and before
// death's despawn applies. While stopped every read is served with the
// frame in progress as the tick, the entity alive with the value and
// grazing as its writer; edits wait for the frame's end; a step finishes
// the frame, and the journal numbers the despawn with the hit's frame.
func TestBreakAtTheWrite(t *testing.T) {
	g := startSim(t, 400)
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "debugger"})
	if r := c.reply(&protocol.Watch{Expr: "Energy.Value<-30"}); !r.OK {
		t.Fatalf("Watch: %+v", r)
	}
	hit := c.awaitHit()
	if hit.By != "grazing" || !hit.Paused || hit.Component != "Energy" {
		t.Fatalf("hit: %+v", hit)
	}
	s := c.summaryWhere(func(s *protocol.Summary) bool { return s.Halt != nil })
	if !s.Paused || s.Tick != hit.Tick || s.Halt.System != "grazing" || s.Halt.Of != 11 || !slices.Contains(s.Halt.Ran, "grazing") {
		t.Fatalf("stopped at tick %d (hit %d), paused %v, halt %+v", s.Tick, hit.Tick, s.Paused, s.Halt)
	}
	for _, ran := range s.Halt.Ran {
		if ran == "hunger" || ran == "death" {
			t.Fatalf("%s ran before the halt: %v", ran, s.Halt.Ran)
		}
	}
	frames := g.frames.Load()
	id := c.request(&protocol.GetEntity{Entity: hit.Entity})
	d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
	if !d.Alive || d.Tick != hit.Tick {
		t.Fatalf("the detail mid-frame: alive %v, tick %d (hit %d), %s", d.Alive, d.Tick, hit.Tick, d.Reason)
	}
	var energy *protocol.ComponentValue
	for i := range d.Components {
		if d.Components[i].Component == "Energy" {
			energy = &d.Components[i]
		}
	}
	if energy == nil {
		t.Fatalf("no Energy in %+v", d.Components)
	}
	if v, _ := energy.Value.Get("Value"); v.Float() != -40 {
		t.Fatalf("Energy mid-frame = %v, want -40", energy.Value)
	}
	if energy.Written == nil || energy.Written.By != "grazing" || energy.Written.Tick != hit.Tick {
		t.Fatalf("Energy written: %+v, want grazing at tick %d", energy.Written, hit.Tick)
	}
	r := c.reply(&protocol.SetField{Entity: hit.Entity, Path: "Energy.Value", Value: protocol.FloatValue(5)})
	if r.OK || r.Code != protocol.ErrState || !strings.Contains(r.Message, "inside frame") {
		t.Fatalf("an edit mid-frame: %+v", r)
	}
	if n := g.frames.Load(); n != frames {
		t.Fatalf("%d frames ran while stopped", n-frames)
	}
	// A step finishes the frame and pauses at its end: death has run.
	if r := c.reply(&protocol.Step{N: 1}); !r.OK {
		t.Fatalf("Step: %+v", r)
	}
	s = c.summaryWhere(func(s *protocol.Summary) bool { return s.Halt == nil && s.Paused })
	if s.Tick != hit.Tick {
		t.Fatalf("the step paused at tick %d, want the hit's frame %d ended", s.Tick, hit.Tick)
	}
	// Dead now, its last state is kept: grazing's -40 less hunger's bite,
	// with the frame's writers, and who despawned it.
	dead, refused := c.getEntity(hit.Entity)
	if dead == nil || dead.Alive || dead.Died == nil || dead.Died.By != "death" || dead.Died.Tick != hit.Tick || !strings.Contains(dead.Reason, fmt.Sprintf("despawned at tick %d by death", hit.Tick)) {
		t.Fatalf("after the frame: %+v (refused: %+v)", dead, refused)
	}
	lastEnergy := false
	for _, cv := range dead.Components {
		if v, _ := cv.Value.Get("Value"); cv.Component == "Energy" && v.Float() < -40 && v.Float() > -40.1 && cv.Written != nil && cv.Written.Tick == hit.Tick {
			lastEnergy = true
		}
	}
	if !lastEnergy {
		for _, cv := range dead.Components {
			t.Logf("%s %v written %s", cv.Component, cv.Value, provText(cv.Written))
		}
		t.Fatalf("the dead entity's last state: want Energy just below -40, written in frame %d", hit.Tick)
	}
	c.reply(&protocol.Subscribe{What: protocol.SubJournal, Hz: 100})
	j := c.await(func(m protocol.Message) bool { _, ok := m.(*protocol.Journal); return ok }).(*protocol.Journal)
	found := false
	for _, e := range j.Entries {
		if e.Entity == hit.Entity && e.Op == "despawn" {
			found = true
			if e.Frame != hit.Tick || e.System != "death" {
				t.Fatalf("the journal's despawn: %+v, want frame %d by death", e, hit.Tick)
			}
		}
	}
	if !found {
		t.Fatalf("no despawn of %v in the journal", hit.Entity)
	}
}

// TestHeldPause: a pause sent with hold outlives its client, with nobody
// connected, until a resume from another client or the game's hold
// timeout; a pause without hold ends when its client leaves.
func TestHeldPause(t *testing.T) {
	runsAgain := func(g *game) bool {
		before := g.frames.Load()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if g.frames.Load() > before+2 {
				return true
			}
		}
		return false
	}
	pauseAndLeave := func(g *game, hold bool) {
		c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "script"})
		if r := c.reply(&protocol.Pause{Hold: hold}); !r.OK {
			t.Fatalf("Pause: %+v", r)
		}
		c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused })
		c.conn.Close()
	}
	g := startGame(t, Options{})
	pauseAndLeave(g, false)
	if !runsAgain(g) {
		t.Fatal("a pause without hold stayed after its client left")
	}
	pauseAndLeave(g, true)
	frames := g.frames.Load()
	time.Sleep(200 * time.Millisecond) // frames would run here were the pause not held
	if n := g.frames.Load(); n != frames {
		t.Fatalf("%d frames ran under a held pause with no client", n-frames)
	}
	other := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "another"})
	if r := other.reply(&protocol.Resume{}); !r.OK {
		t.Fatalf("Resume: %+v", r)
	}
	if !runsAgain(g) {
		t.Fatal("the resume did not end the held pause")
	}
	other.conn.Close()
	timed := startGame(t, Options{HoldTimeout: 300 * time.Millisecond})
	pauseAndLeave(timed, true)
	if !runsAgain(timed) {
		t.Fatal("the held pause outlived the game's hold timeout")
	}
}

// TestReleaseEndsEveryPause: a game held paused by a watchpoint hit (set
// to hold, its client gone) runs on once Release is called, as a game
// shutting down on Ctrl-C needs, and is not paused again.
func TestReleaseEndsEveryPause(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "script"})
	wantOK(t, "watch", c.reply(&protocol.Watch{Expr: "Health.HP>1000", Hold: true}))
	wantOK(t, "edit", c.reply(&protocol.SetField{Entity: wire(g.ents[2]), Path: "Health.HP", Value: protocol.IntValue(5000)}))
	c.awaitHit()
	c.conn.Close()
	frames := g.frames.Load()
	time.Sleep(200 * time.Millisecond)
	if n := g.frames.Load(); n != frames {
		t.Fatalf("%d frames ran while a held watchpoint's pause should hold", n-frames)
	}
	g.agent.Release()
	deadline := time.Now().Add(10 * time.Second)
	for g.frames.Load() < frames+3 {
		if time.Now().After(deadline) {
			t.Fatal("the game stayed paused after Release")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEveryPauseEnds: a held timing watchpoint true every frame, its
// client gone, stops the game; at the hold timeout the game runs on and
// keeps running (the watchpoint is suspended, saying why, not firing again
// the next frame), and a read-only session connected all along neither
// keeps the pause nor could end it.
func TestEveryPauseEnds(t *testing.T) {
	g := startGame(t, Options{HoldTimeout: 300 * time.Millisecond})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "script"})
	wantOK(t, "watch", c.reply(&protocol.Watch{Expr: "frame > 1ns", Hold: true}))
	c.awaitHit()
	c.conn.Close()
	watcher := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "viewer", Caps: []string{"read"}})
	if r := watcher.reply(&protocol.Resume{}); r.OK {
		t.Fatal("a read-only session resumed the game")
	}
	stopped := g.frames.Load()
	deadline := time.Now().Add(20 * time.Second)
	for g.frames.Load() < stopped+30 {
		if time.Now().After(deadline) {
			t.Fatalf("%d frames in 20 s after the hold timeout: the held watchpoint keeps taking the game", g.frames.Load()-stopped)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := watcher.summaryWhere(func(s *protocol.Summary) bool { return !s.Paused && len(s.Watches) == 1 })
	if wp := s.Watches[0]; !strings.Contains(wp.Suspended, "held the game paused for 300ms with no client that may resume it") {
		t.Fatalf("the watchpoint after the timeout: %+v", wp)
	}
}

// TestWatchSetWhileStopped: a watchpoint set while the game is stopped
// inside a frame names the system whose write made its value true in that
// frame (grazing's -40), not a later system of the frame that writes the
// row again (hunger, which finds it true already); its hit comes at once,
// for the frame in progress, and does not pause the game again; so too
// when it replaced the watchpoint that stopped the game.
func TestWatchSetWhileStopped(t *testing.T) {
	for _, replaced := range []bool{false, true} {
		t.Run(fmt.Sprintf("replaced=%v", replaced), func(t *testing.T) { watchSetWhileStopped(t, replaced) })
	}
}

func watchSetWhileStopped(t *testing.T, replaced bool) {
	_, c, stop := stoppedByStarve(t)
	if replaced { // by a log: the new watchpoint is the only one
		if r := c.reply(&protocol.Unwatch{Watch: stop.Watch}); !r.OK {
			t.Fatalf("Unwatch: %+v", r)
		}
	}
	r := c.reply(&protocol.Watch{Expr: "Energy.Value<-39", Log: true})
	if !r.OK {
		t.Fatalf("Watch while stopped: %+v", r)
	}
	c.request(&protocol.Step{N: 1}) // the rest of the frame: hunger writes the row again
	hit := c.await(func(m protocol.Message) bool { h, ok := m.(*protocol.WatchHit); return ok && h.Watch == r.Watch }).(*protocol.WatchHit)
	if hit.By != "grazing" || hit.Tick != stop.Tick || hit.Paused {
		t.Fatalf("the hit of a watchpoint set while stopped after grazing: by %q at tick %d (stopped at %d), paused %v; want grazing's, not paused", hit.By, hit.Tick, stop.Tick, hit.Paused)
	}
	s := c.summaryWhere(func(s *protocol.Summary) bool { return s.Halt == nil && s.Paused })
	for _, w := range s.Watches {
		if w.ID != r.Watch {
			continue
		}
		for _, grp := range w.Groups {
			if grp.By != "grazing" {
				t.Fatalf("the watchpoint's hits grouped by writer: %+v; only grazing writes below -39", w.Groups)
			}
		}
	}
}

// TestPausingWatchSetWhileStopped: while the game is stopped inside a
// frame, a pausing watchpoint is set (a script sets its next stop there);
// once resumed, the game stops on it.
func TestPausingWatchSetWhileStopped(t *testing.T) {
	_, c, stop := stoppedByStarve(t)
	if r := c.reply(&protocol.Unwatch{Watch: stop.Watch}); !r.OK {
		t.Fatalf("Unwatch: %+v", r)
	}
	r := c.reply(&protocol.Watch{Expr: "Energy.Value<-39"})
	if !r.OK {
		t.Fatalf("a pausing watchpoint set while stopped inside a frame: %+v", r)
	}
	c.request(&protocol.Resume{})
	// Its hit for the frame it was set in does not stop the game again
	// (TestWatchSetWhileStopped); a later one does.
	hit := c.await(func(m protocol.Message) bool {
		h, ok := m.(*protocol.WatchHit)
		return ok && h.Watch == r.Watch && h.Paused
	}).(*protocol.WatchHit)
	if hit.Tick <= stop.Tick || hit.By != "grazing" {
		t.Fatalf("the new watchpoint's stop: %+v (stopped before at tick %d)", hit, stop.Tick)
	}
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick >= hit.Tick })
}
