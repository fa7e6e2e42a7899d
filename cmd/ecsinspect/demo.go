package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// Components of the demo: grazers wander, eat and starve; grazers that eat
// enough give birth, so entities are spawned and despawned every frame.
type (
	Position struct{ X, Y float64 }
	Velocity struct{ X, Y float64 }
	Energy   struct{ Value float64 }
	// Hungry is a sparse tag toggled as energy crosses a threshold.
	Hungry struct{}
	// Born and Died are events.
	Born struct{ Who, Parent ecs.Entity }
	Died struct{ Who ecs.Entity }
	// Clock is a resource.
	Clock struct {
		Frame   uint64
		Seconds float64
	}
)

// Storage puts Hungry in a sparse set: toggling it moves no rows.
func (Hungry) Storage() ecs.StorageKind { return ecs.SparseStorage }

type demoWorld struct {
	w      *ecs.World
	sched  *ecs.Schedule
	spawn  *ecs.Map3[Position, Velocity, Energy]
	hungry *ecs.Map[Hungry]
	rng    *rand.Rand
	births int
	deaths int
	dt     float64
}

const worldSize = 1000.0

func newDemoWorld(n int, seed uint64) *demoWorld {
	d := &demoWorld{w: ecs.NewWorld(), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), dt: 1.0 / 60}
	w := d.w
	d.spawn = ecs.NewMap3[Position, Velocity, Energy](w)
	d.hungry = ecs.NewMap[Hungry](w)
	pos := ecs.NewMap[Position](w)
	born, died := ecs.EventsOf[Born](w), ecs.EventsOf[Died](w)
	ecs.SetResource(w, Clock{})
	d.spawn.SpawnBatch(n, func(_ int, _ ecs.Entity, p *Position, v *Velocity, e *Energy) {
		*p = Position{d.rng.Float64() * worldSize, d.rng.Float64() * worldSize}
		*v = Velocity{d.rng.NormFloat64() * 20, d.rng.NormFloat64() * 20}
		e.Value = 1 + d.rng.Float64()*118
	})
	move := ecs.NewQuery2[Position, Velocity](w, ecs.Write[Position](), ecs.Write[Velocity]())
	burn := ecs.NewQuery1[Energy](w, ecs.Write[Energy]())
	d.sched = ecs.NewSchedule()
	d.sched.Add("movement", func(w *ecs.World, _ *ecs.Commands) {
		for p, v := range move.All() {
			p.X += v.X * d.dt
			p.Y += v.Y * d.dt
			if p.X < 0 || p.X > worldSize {
				v.X = -v.X
			}
			if p.Y < 0 || p.Y > worldSize {
				v.Y = -v.Y
			}
		}
	}, ecs.Writes[Position](), ecs.Writes[Velocity]())
	d.sched.Add("metabolism", func(w *ecs.World, cmds *ecs.Commands) {
		it := burn.Iter()
		for it.Next() {
			e := it.Get()
			e.Value += (d.rng.Float64() - 0.505) * 300 * d.dt
			switch ent := it.Entity(); {
			case e.Value <= 0:
				cmds.Despawn(ent)
				died.Send(Died{Who: ent})
				d.deaths++
			case e.Value > 120:
				e.Value -= 60
				child := cmds.Spawn()
				ecs.AddLater(cmds, child, Velocity{d.rng.NormFloat64() * 20, d.rng.NormFloat64() * 20})
				ecs.AddLater(cmds, child, Energy{Value: 60})
				born.Send(Born{Who: child, Parent: ent})
				d.births++
			case (e.Value < 20) != d.hungry.Has(ent):
				if d.hungry.Has(ent) {
					ecs.RemoveLater[Hungry](cmds, ent)
				} else {
					ecs.AddLater(cmds, ent, Hungry{})
				}
			}
		}
	}, ecs.Writes[Energy](), ecs.Reads[Hungry](), ecs.Writes[Born](), ecs.Writes[Died]())
	d.sched.AddStage("after")
	d.sched.Add("birthplace", func(w *ecs.World, cmds *ecs.Commands) {
		// Newborns start where their parent stands.
		for ev := range born.All() {
			if p := pos.Read(ev.Parent); p != nil && !pos.Has(ev.Who) && w.Alive(ev.Who) {
				ecs.AddLater(cmds, ev.Who, *p)
			}
		}
	}, ecs.Reads[Born](), ecs.Reads[Position]())
	d.sched.Add("clock", func(w *ecs.World, _ *ecs.Commands) {
		c := ecs.Resource[Clock](w)
		c.Frame++
		c.Seconds += d.dt
	}, ecs.Writes[Clock]())
	return d
}

// step runs one frame.
func (d *demoWorld) step() {
	d.sched.Run(d.w)
	_ = d.w.Tick()
}

func runDemo(args []string, out, errOut io.Writer, stop <-chan os.Signal) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, "Usage: ecsinspect demo [flags]\n\nRuns the demo ecosystem with an inspector agent and opens the terminal UI on it.\n\n")
		fs.PrintDefaults()
	}
	entities := fs.Int("entities", 10_000, "entities to start with (100 to 1000000)")
	hz := fs.Float64("hz", 60, "simulation steps per second")
	frames := fs.Int("frames", 0, "stop after this many frames (0: until you quit)")
	seed := fs.Uint64("seed", 1, "random seed; the same seed replays the same run")
	headless := fs.Bool("headless", false, "no UI: print a status line each second")
	listen := fs.String("listen", "127.0.0.1:0", "where the agent listens (port 0: a free one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *entities < 100 || *entities > 1_000_000 {
		return fmt.Errorf("--entities %d: want 100 to 1000000", *entities)
	}
	if *hz <= 0 || *hz > 1000 {
		return fmt.Errorf("--hz %v: want more than 0, at most 1000", *hz)
	}
	d := newDemoWorld(*entities, *seed)
	d.dt = 1 / *hz
	agent := inspector.New(d.w, inspector.Options{Addr: *listen, Game: "grazers", Schedule: d.sched})
	if err := agent.Start(); err != nil {
		return err
	}
	defer agent.Close()

	quit := make(chan struct{})
	loopDone := make(chan struct{})
	status := func(frame int, busy time.Duration, n int) {
		if *headless {
			fmt.Fprintf(out, "tick %-7d entities %-8d hungry %-7d births %-7d deaths %-7d frame %v  agent %s\n",
				frame, d.w.Len(), d.hungry.Len(), d.births, d.deaths, (busy / time.Duration(max(n, 1))).Round(time.Microsecond), agent.Addr())
		}
	}
	if *headless {
		fmt.Fprintf(out, "ecsinspect demo: %d grazers at %g Hz, agent on %s (Ctrl-C to stop)\n", *entities, *hz, agent.Addr())
	}
	go func() {
		defer close(loopDone)
		ticker := time.NewTicker(time.Duration(float64(time.Second) * d.dt))
		defer ticker.Stop()
		var busy time.Duration
		n, frame := 0, 0
		last := time.Now()
		for *frames == 0 || frame < *frames {
			select {
			case <-quit:
				return
			case <-ticker.C:
			}
			start := time.Now()
			d.step()
			agent.Sync()
			busy += time.Since(start)
			frame++
			n++
			if time.Since(last) >= time.Second || (*frames != 0 && frame == *frames) {
				status(frame, busy, n)
				busy, n, last = 0, 0, time.Now()
			}
		}
	}()
	if *headless {
		select {
		case <-stop:
			close(quit)
		case <-loopDone:
		}
		<-loopDone
		return nil
	}
	err := runTUI(agent.Addr(), "", errOut)
	close(quit)
	<-loopDone
	return err
}

// runTUI attaches the terminal UI to an agent until the user quits.
func runTUI(addr, token string, errOut io.Writer) error {
	sess := newSession(addr, token)
	m := newModel(sess, addr)
	p := tea.NewProgram(m, tea.WithAltScreen())
	sess.send = p.Send
	go sess.run()
	_, err := p.Run()
	sess.close()
	return err
}
