package inspector

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
)

type Position struct{ X, Y float64 }
type Velocity struct{ X, Y float64 }
type Health struct{ HP int }
type Frozen struct{}
type Name struct{ Value string }

// game runs a small world with an agent, its loop on its own goroutine as a
// real game's would be.
type game struct {
	t      *testing.T
	w      *ecs.World
	agent  *Agent
	frames atomic.Int64
	// syncMax is the longest Sync since it was last reset, in ns.
	syncMax atomic.Int64
	// gapMax is the longest time between two frames' ends since it was
	// last reset, in ns: how long the game went without a frame.
	gapMax atomic.Int64
	do     chan func()
	stop   chan struct{}
	done   chan struct{}
	ents   []ecs.Entity
}

func startGame(t *testing.T, opts Options, systems ...func(g *game, s *ecs.Schedule)) *game {
	t.Helper()
	g := &game{t: t, w: ecs.NewWorld(), do: make(chan func()), stop: make(chan struct{}), done: make(chan struct{})}
	spawn := ecs.NewMap3[Position, Velocity, Health](g.w)
	for i := range 20 {
		g.ents = append(g.ents, spawn.Spawn(Position{X: float64(i)}, Velocity{X: 1}, Health{HP: i}))
	}
	names := ecs.NewMap[Name](g.w)
	must(t, names.Add(g.ents[0], Name{Value: "orc chief"}))
	must(t, ecs.NewMap[Frozen](g.w).Add(g.ents[1], Frozen{}))
	must(t, g.w.SetParent(g.ents[2], g.ents[0]))
	move := ecs.NewQuery2[Position, Velocity](g.w, ecs.Mut[Position]())
	s := ecs.NewSchedule()
	s.Add("movement", func(*ecs.World, *ecs.Commands) {
		for p, v := range move.All() {
			p.X += v.X * 0.001
		}
	}, ecs.Reads[Velocity](), ecs.Writes[Position]())
	for _, add := range systems {
		add(g, s)
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	opts.Schedule = s
	opts.Game = "test"
	g.agent = New(g.w, opts)
	if err := g.agent.Start(); err != nil {
		t.Fatal(err)
	}
	g.loop(testpace.Frame(), func() {
		s.Run(g.w)
		_ = g.w.Tick() // an error names commands skipped for entities already gone
	})
	return g
}

// loop runs the game on its own goroutine until the test ends: every
// period, step (the game's frame) then the agent's Sync, timed; between
// frames, what on sends.
func (g *game) loop(period time.Duration, step func()) {
	go func() {
		defer close(g.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case <-g.stop:
				return
			case fn := <-g.do:
				fn()
			case <-tick.C:
				step()
				start := time.Now()
				g.agent.Sync()
				if d := time.Since(start).Nanoseconds(); d > g.syncMax.Load() {
					g.syncMax.Store(d)
				}
				g.frames.Add(1)
				now := time.Now()
				if d := now.Sub(last).Nanoseconds(); d > g.gapMax.Load() {
					g.gapMax.Store(d)
				}
				last = now
			}
		}
	}()
	g.t.Cleanup(g.close)
}

func (g *game) close() {
	select {
	case <-g.stop:
		return
	default:
	}
	_ = g.agent.Close()
	close(g.stop)
	<-g.done
}

// on runs fn on the game goroutine, between frames.
func (g *game) on(fn func()) {
	g.t.Helper()
	done := make(chan struct{})
	select {
	case g.do <- func() { fn(); close(done) }:
	case <-time.After(15 * time.Second):
		g.t.Fatal("the game loop is stuck")
	}
	<-done
}

// testClient is a test's connection to the agent.
type testClient struct {
	t      *testing.T
	conn   *protocol.Conn
	frames *atomic.Int64 // the game's frames, when dialed to a game: await waits while they advance
	id     uint32
	sumSub uint32            // summaryWhere's own summary subscription
	sum    *protocol.Summary // its summary so far
}

func dial(t *testing.T, g *game, hello protocol.Hello) *testClient {
	t.Helper()
	c := dialAddr(t, g.agent.Addr(), hello)
	c.frames = &g.frames
	return c
}

// dialAddr connects to an agent's socket, or to an instance over a broker
// (nats://host:port/instance).
func dialAddr(t *testing.T, addr string, hello protocol.Hello) *testClient {
	t.Helper()
	c, err := tryDialAddr(addr, hello)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.conn.Close() })
	c.t = t
	return c
}

func tryDial(g *game, hello protocol.Hello) (*testClient, error) {
	return tryDialAddr(g.agent.Addr(), hello)
}

func tryDialAddr(addr string, hello protocol.Hello) (*testClient, error) {
	var nc net.Conn
	var err error
	if fleet.IsURL(addr) {
		nc, err = fleet.DialURL(addr, 3*time.Second)
	} else {
		nc, err = net.Dial("tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	conn := protocol.NewConn(nc)
	if hello.Client == "" {
		hello.Client = "test"
	}
	if _, err := protocol.ClientHandshake(conn, hello, 2*time.Second); err != nil {
		conn.Close()
		return nil, err
	}
	return &testClient{conn: conn}, nil
}

// request sends m with a fresh id and returns the id.
func (c *testClient) request(m protocol.Request) uint32 {
	c.t.Helper()
	c.id++
	setID(m, c.id)
	if err := c.conn.Send(m); err != nil {
		c.t.Fatal(err)
	}
	return c.id
}

func setID(m protocol.Request, id uint32) {
	switch m := m.(type) {
	case *protocol.Subscribe:
		m.ID = id
	case *protocol.Unsubscribe:
		m.ID = id
	case *protocol.Query:
		m.ID = id
	case *protocol.GetEntity:
		m.ID = id
	case *protocol.GetDangling:
		m.ID = id
	case *protocol.SetField:
		m.ID = id
	case *protocol.AddComponent:
		m.ID = id
	case *protocol.RemoveComponent:
		m.ID = id
	case *protocol.Spawn:
		m.ID = id
	case *protocol.Despawn:
		m.ID = id
	case *protocol.Pause:
		m.ID = id
	case *protocol.Resume:
		m.ID = id
	case *protocol.Step:
		m.ID = id
	case *protocol.SnapshotRequest:
		m.ID = id
	case *protocol.SetParent:
		m.ID = id
	case *protocol.Watch:
		m.ID = id
	case *protocol.Unwatch:
		m.ID = id
	case *protocol.EnableWatch:
		m.ID = id
	case *protocol.Rewind:
		m.ID = id
	case *protocol.GetResource:
		m.ID = id
	}
}

// await reads messages until keep accepts one, or fails the test after
// 15 s without one in which the game ran no frame: what a test waits for
// comes with the game's frames (a random bug's next hit, a slot freed at
// a Sync), however slowly a busy machine or the race detector runs them.
func (c *testClient) await(keep func(protocol.Message) bool) protocol.Message {
	c.t.Helper()
	defer c.waitWhileTheGameRuns()()
	for {
		m, err := c.conn.Receive()
		if err != nil {
			c.t.Fatalf("waiting for a message: %v", err)
		}
		if keep(m) {
			return m
		}
	}
}

// awaitQuiet is how long await waits with the game running no frame;
// awaitMost, how long it waits at all.
const (
	awaitQuiet = 15 * time.Second
	awaitMost  = 3 * time.Minute
)

// waitWhileTheGameRuns sets the read deadline awaitQuiet ahead, and again
// each second in which the game's frames advanced (for awaitMost at
// most); the func it returns stops that and clears the deadline.
func (c *testClient) waitWhileTheGameRuns() (stop func()) {
	_ = c.conn.SetReadDeadline(time.Now().Add(awaitQuiet))
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		if c.frames == nil {
			return
		}
		last, end := c.frames.Load(), time.Now().Add(awaitMost)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if now := c.frames.Load(); now != last && time.Now().Before(end) {
					last = now
					_ = c.conn.SetReadDeadline(time.Now().Add(awaitQuiet))
				}
			}
		}
	}()
	return func() {
		close(done)
		<-over
		_ = c.conn.SetReadDeadline(time.Time{})
	}
}

// reply sends m and waits for its reply.
func (c *testClient) reply(m protocol.Request) *protocol.Reply {
	c.t.Helper()
	id := c.request(m)
	return c.await(func(m protocol.Message) bool {
		r, ok := m.(*protocol.Reply)
		return ok && r.ID == id
	}).(*protocol.Reply)
}

func (c *testClient) summary() *protocol.Summary {
	c.t.Helper()
	return c.await(func(m protocol.Message) bool { _, ok := m.(*protocol.Summary); return ok }).(*protocol.Summary)
}

func wire(e ecs.Entity) protocol.EntityID { return protocol.MakeEntityID(e.Index(), e.Generation()) }

// getEntity asks for e's detail: the Detail, or the Reply refusing it.
func (c *testClient) getEntity(e protocol.EntityID) (*protocol.Detail, *protocol.Reply) {
	c.t.Helper()
	id := c.request(&protocol.GetEntity{Entity: e})
	m := c.await(func(m protocol.Message) bool {
		switch m := m.(type) {
		case *protocol.Detail:
			return m.Sub == id
		case *protocol.Reply:
			return m.ID == id
		}
		return false
	})
	if r, ok := m.(*protocol.Reply); ok {
		return nil, r
	}
	return m.(*protocol.Detail), nil
}
