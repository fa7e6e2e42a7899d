package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The small fixed world the golden screens show.
type (
	Position  struct{ X, Y float64 }
	Velocity  struct{ X, Y float64 }
	Health    struct{ HP, Max int }
	Label     struct{ Text string }
	Inventory struct {
		Slots [3]int
		Owner ecs.Entity
	}
	Frozen struct{}
	Hit    struct {
		Target ecs.Entity
		Damage int
	}
	Gravity struct{ G float64 }
	// Nest is a resource of handles: a grid of cells, who rules it.
	Nest struct {
		Cells [4]ecs.Entity
		Queen ecs.Entity
	}
)

// Storage keeps the often-toggled tag in a sparse set.
func (Frozen) Storage() ecs.StorageKind { return ecs.SparseStorage }

// mustBuild stops a test whose fixture the kernel refused: the screens
// would show another world than the one meant.
func mustBuild(err error) {
	if err != nil {
		panic(err)
	}
}

// fixedWorld builds the same world every time: three archetypes, a parent
// with two children, a recycled slot, a sparse tag, events, resources and a
// schedule that has run one frame.
func fixedWorld() (*ecs.World, *ecs.Schedule) {
	w := ecs.NewWorld()
	w.Inspect().TrackChanges() // who wrote, from the first frame (the agent attaches after it)
	w.Inspect().EnableJournal(64)
	movers := ecs.NewMap3[Position, Velocity, Health](w)
	var es []ecs.Entity
	for i := range 6 {
		es = append(es, movers.Spawn(Position{X: float64(i), Y: float64(-i)}, Velocity{X: 1, Y: 0.5}, Health{HP: 10 * (i + 1), Max: 100}))
	}
	labels := ecs.NewMap2[Position, Label](w)
	for _, name := range []string{"camera", "sun", "spawner"} {
		labels.Spawn(Position{X: 5, Y: 5}, Label{Text: name})
	}
	mustBuild(w.Despawn(es[5]))
	chest := w.Spawn() // takes the recycled slot
	mustBuild(ecs.NewMap[Inventory](w).Add(chest, Inventory{Slots: [3]int{4, 0, 2}, Owner: es[0]}))
	frozen := ecs.NewMap[Frozen](w)
	mustBuild(frozen.Add(es[3], Frozen{}))
	mustBuild(w.SetParent(es[1], es[0]))
	mustBuild(w.SetParent(es[2], es[0]))
	ecs.SetResource(w, Gravity{G: 9.81})
	ecs.SetResource(w, Nest{Cells: [4]ecs.Entity{es[0], es[1], es[5], es[2]}, Queen: es[0]}) // es[5] is despawned: a dangling handle
	hits := ecs.EventsOf[Hit](w)
	hits.Send(Hit{Target: es[1], Damage: 3})
	hits.Send(Hit{Target: es[2], Damage: 7})

	s := ecs.NewSchedule()
	move := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position]())
	s.Add("move", func(w *ecs.World, _ *ecs.Commands) {
		for p, v := range move.All() {
			p.X += v.X
			p.Y += v.Y
		}
	}, ecs.Writes[Position](), ecs.Reads[Velocity]())
	s.Add("regen", func(w *ecs.World, _ *ecs.Commands) {}, ecs.Writes[Health]())
	s.Add("physics", func(w *ecs.World, _ *ecs.Commands) {}, ecs.Reads[Gravity](), ecs.Reads[Position]())
	s.Run(w)
	if err := w.Tick(); err != nil {
		panic(err)
	}
	return w, s
}

// pinVolatile fixes what differs between two runs of the same world, the
// measured times and the agent's traffic counters, so screens compare
// byte for byte; everything else on screen is what the agent sent.
func pinVolatile(msg tea.Msg) tea.Msg {
	sm, ok := msg.(summaryMsg)
	if !ok {
		return msg
	}
	s := *sm.s
	s.FrameNs, s.WorkNs = 16_600_000, 1_340_000
	// The last frames as a steady game's: the world is never stepped, but
	// the frames the agent serves it in come as they come.
	s.Frames = make([]protocol.FrameStat, protocol.MaxFrames)
	for i := range s.Frames {
		s.Frames[i] = protocol.FrameStat{Tick: uint64(i + 1), Ns: 16_600_000, Work: int64(1_000_000 + (i%7)*100_000), Entities: s.Entities}
	}
	s.Agent = protocol.Telemetry{Clients: 1, BytesSent: 48_213, FramesSent: 120, SyncNs: 41_500, Recording: s.Agent.Recording}
	s.Systems = append([]protocol.System(nil), s.Systems...)
	for i := range s.Systems {
		sys := &s.Systems[i]
		base := int64(len(s.Systems)-i) * 150_000
		sys.Last, sys.Mean, sys.Max = base, base, 2*base
		sys.Recent = []int64{base, 2 * base, base / 2, base}
	}
	return summaryMsg{&s}
}

// viewProbe lets the test read the screen on the program's own goroutine.
type viewProbe struct{ *model }

type viewRequest chan string

func (p viewProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if r, ok := msg.(viewRequest); ok {
		r <- p.model.View()
		return p, nil
	}
	_, cmd := p.model.Update(msg)
	return p, cmd
}

// goldenUI is a real program (teatest) attached over loopback to an agent
// serving fixedWorld; the world is never stepped, so screens are stable.
type goldenUI struct {
	t  *testing.T
	tm *teatest.TestModel
}

func newGoldenUI(t *testing.T, width, height int) *goldenUI {
	w, sched := fixedWorld()
	agent := inspector.New(w, inspector.Options{Addr: "127.0.0.1:0", Game: "fixed", Schedule: sched})
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	testgame.Loop(t, 5*time.Millisecond, agent.Sync) // serves the agent, changes nothing
	sess := newSession(client.GameAt(agent.Addr(), ""))
	m := newModel(sess, "127.0.0.1:7777") // the address shown: fixed for the goldens
	tm := teatest.NewTestModel(t, viewProbe{m}, teatest.WithInitialTermSize(width, height))
	sess.send = func(msg tea.Msg) { tm.Send(pinVolatile(msg)) }
	go sess.run()
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		sess.close()
	})
	return &goldenUI{t: t, tm: tm}
}

func (g *goldenUI) view() string {
	r := make(viewRequest, 1)
	g.tm.Send(r)
	select {
	case v := <-r:
		return v
	case <-time.After(5 * time.Second):
		g.t.Fatal("the program stopped answering")
		return ""
	}
}

// settle waits until the screen shows every want and then stops changing.
func (g *goldenUI) settle(want ...string) string {
	g.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	prev := ""
	for time.Now().Before(deadline) {
		v := g.view()
		all := true
		for _, w := range want {
			all = all && strings.Contains(v, w)
		}
		if all && v == prev {
			return v
		}
		prev = v
		time.Sleep(120 * time.Millisecond)
	}
	g.t.Fatalf("the screen never settled showing %q; it shows:\n%s", want, prev)
	return ""
}

func (g *goldenUI) keys(ks ...string) {
	for _, k := range ks {
		g.tm.Send(keyMsg(k))
	}
}

// TestGoldenScreens pins what a person sees in every view, the entity
// detail, the add and spawn forms and the help, at 80x24 and 160x48.
func TestGoldenScreens(t *testing.T) {
	steps := []struct {
		name string
		keys []string
		want []string
	}{
		{"1-overview", []string{"1"}, []string{"most recycled: 5 (gen 2)", "sent 47.1 KiB", "connected"}},
		{"2-archetypes", []string{"2"}, []string{"Position Velocity Health"}},
		{"3-entities", []string{"3"}, []string{"9 matches, 1-9", "ChildOf.Parent", "0v1"}}, // the whole window, not the first page sent before the size
		{"4-systems", []string{"4"}, []string{"regen"}},
		{"5-events", []string{"5"}, []string{"Target:1v1 Damage:3"}},
		{"6-journal", []string{"6"}, []string{"despawn"}},
		{"7-resources", []string{"7"}, []string{"Gravity", "Nest"}},
		{"7-resources-browse", []string{"j", "enter", "enter"}, []string{"Nest.Cells", "3    2v1 →"}},
		{"8-watch", []string{"esc", "esc", "8"}, []string{"none set: w sets one"}},
		{"0-dangling", []string{"0"}, []string{"1 dangling handle:", "Nest.Cells[2]", "5v1"}},
		{"entity-detail", []string{"3", "enter"}, []string{"children (2): 1v1 2v1", "HP = 10"}},
		{"add-form", []string{"a"}, []string{"Add a component to 0v1", "Inventory"}},
		{"add-form-fields", []string{"I", "n", "v", "enter"}, []string{"Slots"}},
		{"spawn-form", []string{"esc", "esc", "esc", "n", "down", "space", "down", "down", "space", "enter"}, []string{"Spawn an entity", "Health", "Label"}},
		{"help", []string{"esc", "esc", "?"}, []string{"keys of Entities first", "sort by column"}},
		{"help-scrolled", []string{"pgdown"}, []string{"remove component"}}, // at 80x24 the rest is below
	}
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			g := newGoldenUI(t, size[0], size[1])
			g.settle("entities")
			for _, s := range steps {
				g.keys(s.keys...)
				v := g.settle(s.want...)
				checkFits(t, v, size[0], size[1])
				t.Run(s.name, func(t *testing.T) { golden.RequireEqual(t, []byte(v)) })
			}
		})
	}
}
