package inspector

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// TestWorldSubscriptionsShareAFeed: many world subscriptions at one rate,
// from several clients, cost one capture and one encoding: the agent
// keeps one feed; each subscription starts at a keyframe numbered 0 and
// counts on by one, and the world each rebuilds is the game's. When the
// clients leave, the feed and what it holds go.
func TestWorldSubscriptionsShareAFeed(t *testing.T) {
	g := bigGame(t, 2000, Options{})
	var clients []*testClient
	for range 7 {
		c := dial(t, g, protocol.Hello{Caps: []string{"read"}})
		for range MaxClientWorldStreams {
			c.request(&protocol.Subscribe{What: protocol.SubWorld}) // the replies are read with the frames
		}
		clients = append(clients, c)
	}
	for _, c := range clients {
		states := map[uint32]*recording.WorldState{}
		next := map[uint32]uint64{}
		for applied := 0; applied < 60; {
			m := c.await(func(m protocol.Message) bool {
				_, ok := m.(*protocol.WorldFrame)
				r, isReply := m.(*protocol.Reply)
				return ok || isReply && !r.OK
			})
			if r, ok := m.(*protocol.Reply); ok {
				t.Fatalf("a world subscription was refused: %+v", r)
			}
			f := m.(*protocol.WorldFrame)
			st := states[f.Sub]
			if st == nil {
				if !f.Full || f.Seq != 0 {
					t.Fatalf("subscription %d began with a frame full %v, n %d: want a keyframe numbered 0", f.Sub, f.Full, f.Seq)
				}
				st = recording.NewWorldState()
				states[f.Sub] = st
			} else if f.Seq != next[f.Sub] {
				t.Fatalf("subscription %d: frame n %d after %d", f.Sub, f.Seq, next[f.Sub]-1)
			}
			next[f.Sub] = f.Seq + 1
			if err := st.Apply(f); err != nil {
				t.Fatalf("subscription %d, frame %d: %v", f.Sub, f.Seq, err)
			}
			if st.Entities() != 2020 {
				t.Fatalf("subscription %d rebuilt %d entities, want 2020", f.Sub, st.Entities())
			}
			applied++
		}
	}
	var feeds int
	g.on(func() { feeds = len(g.agent.feeds) })
	if feeds != 1 {
		t.Fatalf("14 world subscriptions at one rate keep %d feeds, want 1", feeds)
	}
	for _, c := range clients {
		c.conn.Close()
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		g.on(func() { feeds = len(g.agent.feeds) })
		if feeds == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d feeds still run after every client left", feeds)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWorldFeedsAreBounded: the agent streams the world at four rates at
// most (a fifth is refused, saying which rates there are), and a client
// keeps two world subscriptions at most.
func TestWorldFeedsAreBounded(t *testing.T) {
	g := startGame(t, Options{})
	a := dial(t, g, protocol.Hello{Caps: []string{"read"}})
	b := dial(t, g, protocol.Hello{Caps: []string{"read"}})
	for i, hz := range []float64{0, 1, 2, 3} {
		c := []*testClient{a, b}[i/2]
		wantOK(t, fmt.Sprint("world at ", hz), c.reply(&protocol.Subscribe{What: protocol.SubWorld, Hz: hz}))
	}
	r := a.reply(&protocol.Subscribe{What: protocol.SubWorld, Hz: 1})
	if r.OK || r.Code != protocol.ErrTooLarge || !strings.Contains(r.Message, "2 world subscriptions") {
		t.Fatalf("a client's third world subscription: %+v", r)
	}
	c := dial(t, g, protocol.Hello{Caps: []string{"read"}})
	r = c.reply(&protocol.Subscribe{What: protocol.SubWorld, Hz: 5})
	if r.OK || r.Code != protocol.ErrTooLarge || !strings.Contains(r.Message, "4 rates") {
		t.Fatalf("a fifth rate: %+v", r)
	}
	wantOK(t, "a known rate", c.reply(&protocol.Subscribe{What: protocol.SubWorld, Hz: 2}))
}

// TestSlowWorldReaderHoldsItsOwnBacklog: a client that takes world and
// journal subscriptions and reads nothing holds at most about lagBytes
// (plus a frame) waiting: its subscriptions wait for a keyframe instead
// of piling frames up, and the agent does not drop it for overload.
func TestSlowWorldReaderHoldsItsOwnBacklog(t *testing.T) {
	g := bigGame(t, 50000, Options{MaxQueuedBytes: 4 << 20})
	c := dial(t, g, protocol.Hello{Caps: []string{"read"}})
	for range MaxClientWorldStreams {
		c.request(&protocol.Subscribe{What: protocol.SubWorld})
	}
	for range 8 {
		c.request(&protocol.Subscribe{What: protocol.SubJournal})
	}
	// Values that change at random every frame: frames that do not
	// compress, more than the socket holds; spawns and despawns for the
	// journal.
	rng := rand.New(rand.NewPCG(1, 2))
	q := ecs.NewQuery1[Position](g.w, ecs.Mut[Position]())
	spawn := ecs.NewMap3[Position, Velocity, Health](g.w)
	var spawned []ecs.Entity
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		g.on(func() {
			for p := range q.All() {
				p.X, p.Y = rng.Float64(), rng.Float64()
			}
			for range 200 {
				spawned = append(spawned, spawn.Spawn(Position{}, Velocity{}, Health{}))
			}
			for _, e := range spawned[:len(spawned)-100] {
				if err := g.w.Despawn(e); err != nil {
					t.Error(err)
				}
			}
			spawned = spawned[len(spawned)-100:]
		})
	}
	var most int64
	var dropped uint64
	g.on(func() {
		for _, cl := range g.agent.live {
			most = max(most, cl.Backlog())
		}
		dropped = g.agent.srv.Counts().Dropped
	})
	// The frame that passes the lag bound is queued whole (50,000 random
	// positions: under a megabyte), so the bound is the lag and a frame.
	if lag := g.agent.lagBytes(); most > lag+3<<19 {
		t.Fatalf("a client that reads nothing has %d KiB waiting, want at most about %d and a frame", most>>10, lag>>10)
	}
	if dropped != 0 {
		t.Fatalf("the agent dropped %d clients", dropped)
	}
	// Reading again, every frame after frames left out says how many and
	// why (the stream is of every frame): the agent's pacing now and then,
	// and this client's slowness if its frames were left out (on a slow
	// machine the agent's pacing may leave so few that it never lags).
	checked := 0
	last := map[uint32]uint64{}
	_ = c.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		m, err := c.conn.Receive()
		if err != nil {
			t.Fatalf("no world frame said what it skipped: %v", err)
		}
		wf, ok := m.(*protocol.WorldFrame)
		if !ok {
			continue
		}
		prev, seen := last[wf.Sub]
		last[wf.Sub] = wf.Tick
		switch {
		case seen && wf.Tick-prev-1 != wf.Skipped:
			t.Fatalf("after tick %d, tick %d says %d skipped: %q", prev, wf.Tick, wf.Skipped, wf.SkipWhy)
		case wf.Skipped > 0 && wf.SkipWhy == "":
			t.Fatalf("tick %d says %d skipped, not why", wf.Tick, wf.Skipped)
		}
		if checked++; strings.Contains(wf.SkipWhy, "read too slowly") || checked >= 6 {
			return
		}
	}
}

// TestSeriesOf32TermsHoldOneCopy: a client's 64 series of means over 32
// field tests each copy the world to fold off the game goroutine; the
// client holds one copy at a time, what waits for it stays small, and
// the game keeps its frames.
func TestSeriesOf32TermsHoldOneCopy(t *testing.T) {
	g := bigGame(t, 20000, Options{})
	c := dial(t, g, protocol.Hello{Caps: []string{"read"}})
	terms := strings.TrimSpace(strings.Repeat("Position.X>-1e9 ", protocol.MaxQueryTerms-1))
	for i := range protocol.MaxSubscriptions {
		c.request(&protocol.Subscribe{What: protocol.SubSeries, Hz: 60, Query: fmt.Sprintf("mean Health.HP Health.HP>%d %s", -i, terms)})
	}
	go func() { // read what comes
		for {
			if _, err := c.conn.Receive(); err != nil {
				return
			}
		}
	}()
	before := g.frames.Load()
	var mostHeavy int
	var mostBacklog int64
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		g.on(func() {
			for _, cl := range g.agent.live {
				mostHeavy, mostBacklog = max(mostHeavy, cl.HeavyJobs()), max(mostBacklog, cl.Backlog())
			}
		})
	}
	if g.frames.Load()-before < 10 {
		t.Fatalf("the game ran %d frames in a second", g.frames.Load()-before)
	}
	if mostHeavy > 1 || mostBacklog > 4<<20 {
		t.Fatalf("a client held %d copies at once and %d KiB waiting; want 1 and little", mostHeavy, mostBacklog>>10)
	}
}

// TestANewWorldStreamKnowsTheRecentDead: a world subscription begun after
// entities died starts with a keyframe that carries their last state, as
// every later keyframe of a stream does: a reader that starts there opens
// a dead handle with its last state.
func TestANewWorldStreamKnowsTheRecentDead(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{})
	for _, e := range g.ents[5:8] {
		wantOK(t, "despawn", c.reply(&protocol.Despawn{Entity: wire(e)}))
	}
	r := dial(t, g, protocol.Hello{Caps: []string{"read"}})
	wantOK(t, "world", r.reply(&protocol.Subscribe{What: protocol.SubWorld}))
	f := r.await(func(m protocol.Message) bool { _, ok := m.(*protocol.WorldFrame); return ok }).(*protocol.WorldFrame)
	st := recording.NewWorldState()
	if err := st.Apply(f); err != nil || !f.Full {
		t.Fatalf("the stream's first frame: full %v, %v", f.Full, err)
	}
	for _, e := range g.ents[5:8] {
		d, ok := st.DeadEntity(wire(e))
		if !ok || len(d.Components) == 0 {
			t.Errorf("the new stream's keyframe does not carry %v, despawned before it began", e)
		}
	}
}
