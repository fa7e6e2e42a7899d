package inspector

import (
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// demoGame runs the ecosystem demo with an agent, its loop on its own
// goroutine, keeping an image of the world after every frame up to keep.
type demoGame struct {
	sim    *ecosystem.Sim
	agent  *Agent
	frames atomic.Int64
	images map[uint64]*ecs.Image // by tick: the first run's world (on the game goroutine only)
}

func startDemo(t *testing.T, n int, keep uint64, opts Options) *demoGame {
	t.Helper()
	g := &demoGame{sim: ecosystem.New(n, 5), images: map[uint64]*ecs.Image{}}
	opts.Addr, opts.Schedule = "127.0.0.1:0", g.sim.Schedule
	g.agent = New(g.sim.World, opts)
	if err := g.agent.Start(); err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			g.sim.Step()
			// The world as this Sync sees it (a pause holds the loop in it).
			if tick := g.sim.World.Frame(); tick <= keep && g.images[tick] == nil {
				img, err := g.sim.World.Image()
				if err != nil {
					panic(err)
				}
				g.images[tick] = img
			}
			g.agent.Sync()
			g.frames.Add(1)
			time.Sleep(time.Millisecond)
		}
	}()
	t.Cleanup(func() {
		_ = g.agent.Close()
		close(stop)
		<-done
	})
	return g
}

// image takes the world's image on the game goroutine (paused or not).
func (g *demoGame) image(t *testing.T) *ecs.Image {
	t.Helper()
	return g.onGame(t, func() *ecs.Image {
		img, err := g.sim.World.Image()
		if err != nil {
			panic(err)
		}
		return img
	})
}

// first is the first run's image of tick.
func (g *demoGame) first(t *testing.T, tick uint64) *ecs.Image {
	t.Helper()
	return g.onGame(t, func() *ecs.Image { return g.images[tick] })
}

func (g *demoGame) onGame(t *testing.T, f func() *ecs.Image) *ecs.Image {
	t.Helper()
	got := make(chan *ecs.Image, 1)
	g.agent.Do(func() { got <- f() })
	select {
	case img := <-got:
		return img
	case <-time.After(10 * time.Second):
		t.Fatal("the game loop is stuck")
		return nil
	}
}

// TestRewindReplaysTheDemo: the demo keeps its random state in a
// resource, so rewound 100 ticks through the protocol and stepped 100,
// the world is what it was the first time at that tick: every handle,
// row, value, parent, free slot, resource and event.
func TestRewindReplaysTheDemo(t *testing.T) {
	g := startDemo(t, 3000, 400, Options{RewindHz: 1000})
	c := dial(t, &game{agent: g.agent}, protocol.Hello{})
	for g.frames.Load() < 200 {
		time.Sleep(10 * time.Millisecond)
	}
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	now := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }).Tick
	if now > 400 {
		t.Fatalf("paused at tick %d, past the images kept", now)
	}
	r := c.reply(&protocol.Rewind{Tick: now - 100})
	wantOK(t, "rewind", r)
	// The ring may have skipped a frame when its encoder was behind (under
	// the race detector): the rewind then goes to the tick recorded before.
	back := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick <= now-100 }).Tick
	if !strings.Contains(r.Message, fmt.Sprintf("rewound to tick %d", back)) || now-back > 110 {
		t.Fatalf("rewind to %d said %q, and the summary says tick %d", now-100, r.Message, back)
	}
	restored := g.image(t)
	if diff := imageDiff(g.first(t, back), restored); diff != "" {
		t.Fatalf("rewound to tick %d, the world is not what it was: %s", back, diff)
	}
	wantOK(t, "step", c.reply(&protocol.Step{N: uint32(now - back)}))
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == now })
	if diff := imageDiff(g.first(t, now), g.image(t)); diff != "" {
		t.Fatalf("stepped 100 frames from the rewind, tick %d went elsewhere: %s", now, diff)
	}
}

// TestExactRewindReplaysToTheTick: recording a few frames a second, a
// rewind lands on a recorded tick before the one asked for; with Exact the
// agent runs the game on from there and pauses on the tick asked for, the
// world as it was the first time.
func TestExactRewindReplaysToTheTick(t *testing.T) {
	g := startDemo(t, 3000, 600, Options{RewindHz: 4})
	c := dial(t, &game{agent: g.agent}, protocol.Hello{})
	sum := c.summaryWhere(func(s *protocol.Summary) bool { return s.Agent.Rewind != nil && s.Agent.Rewind.Frames >= 3 })
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	now := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }).Tick
	if now > 600 {
		t.Fatalf("paused at tick %d, past the images kept", now)
	}
	ask := sum.Agent.Rewind.To - 1 // a tick the ring did not record: the one before a recorded tick
	r := c.reply(&protocol.Rewind{Tick: ask, Exact: true})
	wantOK(t, "rewind", r)
	if !strings.Contains(r.Message, fmt.Sprintf("to tick %d, then paused", ask)) {
		t.Fatalf("an exact rewind to %d said %q", ask, r.Message)
	}
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == ask })
	if diff := imageDiff(g.first(t, ask), g.image(t)); diff != "" {
		t.Fatalf("an exact rewind to tick %d found another world: %s", ask, diff)
	}
}

func wantOK(t *testing.T, what string, r *protocol.Reply) {
	t.Helper()
	if !r.OK {
		t.Fatalf("%s: %s %s", what, r.Code, r.Message)
	}
}

// imageDiff says where two images differ, "" if nowhere.
func imageDiff(a, b *ecs.Image) string {
	if a == nil || b == nil {
		return "no image"
	}
	switch {
	case a.Frame != b.Frame:
		return fmt.Sprintf("frame %d and %d", a.Frame, b.Frame)
	case !reflect.DeepEqual(a.Slots, b.Slots):
		return "slot generations"
	case !reflect.DeepEqual(a.Free, b.Free):
		return fmt.Sprintf("free lists of %d and %d", len(a.Free), len(b.Free))
	case !reflect.DeepEqual(a.Links, b.Links):
		return "links"
	case len(a.Tables) != len(b.Tables) || len(a.Sparse) != len(b.Sparse):
		return fmt.Sprintf("%d+%d and %d+%d tables", len(a.Tables), len(a.Sparse), len(b.Tables), len(b.Sparse))
	}
	for _, pair := range [][2][]ecs.ImageTable{{a.Tables, b.Tables}, {a.Sparse, b.Sparse}} {
		for i := range pair[0] {
			x, y := pair[0][i], pair[1][i]
			if !reflect.DeepEqual(x.Components, y.Components) || !reflect.DeepEqual(x.Entities, y.Entities) {
				return fmt.Sprintf("table %v: rows differ", x.Components)
			}
			for k := range x.Columns {
				if !reflect.DeepEqual(x.Columns[k].Interface(), y.Columns[k].Interface()) {
					return fmt.Sprintf("table %v: component %d's values differ", x.Components, x.Components[k])
				}
			}
		}
	}
	for t, v := range a.Resources {
		if !reflect.DeepEqual(v.Interface(), b.Resources[t].Interface()) {
			return fmt.Sprintf("resource %s: %+v and %+v", t, v, b.Resources[t])
		}
	}
	for t, ev := range a.Events {
		o := b.Events[t]
		if !reflect.DeepEqual(ev.Previous.Interface(), o.Previous.Interface()) || !reflect.DeepEqual(ev.Current.Interface(), o.Current.Interface()) || ev.Total != o.Total {
			return fmt.Sprintf("events %s", t)
		}
	}
	return ""
}

// TestReplayedFramesAreNotCountedAgain: a watchpoint true every frame,
// the game rewound and stepped over frames it ran before: those frames'
// hits come marked replayed and the watchpoint's count stays; frames past
// the furthest the game had run count again.
func TestReplayedFramesAreNotCountedAgain(t *testing.T) {
	g := startGame(t, Options{RewindHz: 60})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "rewinder"})
	wantOK(t, "watch", c.reply(&protocol.Watch{Expr: "frame > 1ns", Log: true}))
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Agent.Rewind != nil && s.Agent.Rewind.Frames >= 10 })
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	paused := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && len(s.Watches) == 1 })
	hits := paused.Watches[0].Hits
	wantOK(t, "rewind", c.reply(&protocol.Rewind{Tick: paused.Tick - 5, Exact: true}))
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == paused.Tick-5 })
	wantOK(t, "step", c.reply(&protocol.Step{N: 3}))
	s := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == paused.Tick-2 })
	if n := s.Watches[0].Hits; n != hits {
		t.Fatalf("replaying frames the game ran before counted %d hits more", n-hits)
	}
	wantOK(t, "step", c.reply(&protocol.Step{N: 4})) // two replayed frames, then two new ones
	s = c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == paused.Tick+2 })
	if n := s.Watches[0].Hits; n != hits+2 {
		t.Fatalf("two frames past the furthest the game had run counted %d hits, want 2", n-hits)
	}
}

// TestRewindToThePausedTickRestartsWorldStreams: a rewind to the tick the
// game is paused at still restores it, and every world subscription goes
// on from a keyframe of the restored world, as after any rewind.
func TestRewindToThePausedTickRestartsWorldStreams(t *testing.T) {
	g := startDemo(t, 300, 0, Options{RewindHz: 1000})
	c := dial(t, &game{agent: g.agent}, protocol.Hello{})
	for g.frames.Load() < 30 {
		time.Sleep(10 * time.Millisecond)
	}
	wantOK(t, "world", c.reply(&protocol.Subscribe{What: protocol.SubWorld}))
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	now := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }).Tick
	// Frames while paused: empty deltas of the same tick.
	c.await(func(m protocol.Message) bool {
		f, ok := m.(*protocol.WorldFrame)
		return ok && !f.Full && f.Tick == now
	})
	// Exact: the ring may hold an earlier tick as its newest (its captures
	// are paced by the game's time); the rewind replays from there, and
	// each after it lands on the paused tick again.
	for i := range 3 {
		wantOK(t, "rewind to the paused tick", c.reply(&protocol.Rewind{Tick: now, Exact: true}))
		f := c.await(func(m protocol.Message) bool {
			f, ok := m.(*protocol.WorldFrame)
			return ok && (f.Full || f.Tick != now)
		}).(*protocol.WorldFrame)
		if !f.Full {
			t.Fatalf("after rewind %d to the paused tick %d, the world stream went on with a delta of tick %d", i+1, now, f.Tick)
		}
		if f.Tick != now { // the replay's frames, up to the paused tick: the stream's, not the summaries' (its coder may lag them)
			c.await(func(m protocol.Message) bool {
				f, ok := m.(*protocol.WorldFrame)
				return ok && f.Tick == now
			})
		}
		c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == now })
	}
}

// TestRewindAheadWhileReplayingSaysSo: a rewind to a tick the game has
// not reached yet while it plays on to a tick (a replay or a step) is
// refused saying so, and when to ask again.
func TestRewindAheadWhileReplayingSaysSo(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	wantOK(t, "step", c.reply(&protocol.Step{N: 1_000_000}))
	now := c.summaryWhere(func(s *protocol.Summary) bool { return !s.Paused }).Tick
	r := c.reply(&protocol.Rewind{Tick: now + 500_000})
	if r.OK || !strings.Contains(r.Message, "is after the game's tick") || !strings.Contains(r.Message, "playing on to tick") {
		t.Fatalf("a rewind ahead of a game stepping on: %+v", r)
	}
	r = c.reply(&protocol.Rewind{Tick: now + 5_000_000})
	if r.OK || strings.Contains(r.Message, "playing on") {
		t.Fatalf("a rewind past where the game pauses: %+v", r)
	}
}
