package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestWritesBeforeTheAgentNameNoOne: the world keeps who wrote what only
// from the moment something asks, and the agent asks as it attaches. A
// value a system wrote before that (here "regen", in the frames the game
// ran before attaching its agent) has no writer in a Detail rather than a
// guess; a value a system writes after it names the system.
func TestWritesBeforeTheAgentNameNoOne(t *testing.T) {
	if ecsDebugBuild {
		t.Skip("a debug build keeps every component's stamps from the world's start")
	}
	g := &game{t: t, w: ecs.NewWorld(), do: make(chan func()), stop: make(chan struct{}), done: make(chan struct{})}
	spawn := ecs.NewMap2[Position, Health](g.w)
	e := spawn.Spawn(Position{}, Health{HP: 1})
	g.ents = append(g.ents, e)
	health := ecs.NewMap[Health](g.w)
	move := ecs.NewQuery1[Position](g.w, ecs.Mut[Position]())
	s := ecs.NewSchedule()
	s.Add("movement", func(*ecs.World, *ecs.Commands) {
		for p := range move.All() {
			p.X++
		}
	}, ecs.Writes[Position]())
	s.Add("regen", func(w *ecs.World, _ *ecs.Commands) {
		if w.Frame() < 2 { // only before the agent attaches
			health.Get(e).HP++
		}
	}, ecs.Writes[Health]())
	for range 2 {
		s.Run(g.w)
		must(t, g.w.Tick())
	}
	g.agent = New(g.w, Options{Addr: "127.0.0.1:0", Game: "test", Schedule: s})
	if err := g.agent.Start(); err != nil {
		t.Fatal(err)
	}
	g.loop(testpace.Frame(), func() {
		s.Run(g.w)
		must(t, g.w.Tick())
	})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "ui"})
	deadline := time.Now().Add(10 * time.Second)
	for g.frames.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the game ran no frames")
		}
		time.Sleep(time.Millisecond)
	}
	get := c.request(&protocol.GetEntity{Entity: wire(e)})
	d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == get }).(*protocol.Detail)
	seen := 0
	for _, cv := range d.Components {
		switch cv.Component {
		case "Position":
			seen++
			if cv.Written == nil || cv.Written.By != "movement" {
				t.Errorf("Position written by %+v, want movement, which writes it every frame", cv.Written)
			}
		case "Health":
			seen++
			if cv.Written != nil {
				t.Errorf("Health, last written before the agent attached: written by %+v, want no one named", cv.Written)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("the detail lacks Position or Health: %+v", d.Components)
	}
}
