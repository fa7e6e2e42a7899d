package demo

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Options configure a demo game.
type Options struct {
	Entities int     // animals to start with, 100 to 1,000,000
	Hz       float64 // fixed timestep: steps per second, more than 0, at most 1000
	Seed     uint64  // the same seed replays the same run
	Frames   int     // stop after this many frames; 0: until stopped
	// Agent configures the inspector agent (Game and Schedule are set).
	Agent inspector.Options
	// Record, if set, records the run to this .ecsrec file, RecordHz frames
	// a second (0: every frame).
	Record   string
	RecordHz float64
	// Keep, when set, makes the recording a flight recording: a directory
	// that keeps only the last of the run (recording.Keep).
	Keep recording.Keep
	// PostMortem, if set, is where the world goes if the game panics.
	PostMortem string
	// Status, if set, gets a status line each second.
	Status io.Writer
	// Bug turns on one of the ecosystem's deliberate bugs (ecosystem.Bugs).
	Bug string
}

// Check reports what is wrong with the options, in words for a flag.
func (o *Options) Check() error {
	switch {
	case o.Entities < 100 || o.Entities > 1_000_000:
		return fmt.Errorf("--entities %d: want 100 to 1000000", o.Entities)
	case o.Hz <= 0 || o.Hz > 1000:
		return fmt.Errorf("--hz %v: want more than 0, at most 1000", o.Hz)
	case o.Frames < 0:
		return fmt.Errorf("--frames %d: want 0 (no end) or more", o.Frames)
	}
	if _, ok := ecosystem.Bugs[o.Bug]; !ok && o.Bug != "" {
		return fmt.Errorf("--bug %s: the demo has one bug, starve", o.Bug)
	}
	return nil
}

// Game is the demo ecosystem with its agent, and the recorder if any.
type Game struct {
	Sim      *ecosystem.Sim
	Agent    *inspector.Agent
	rec      *inspector.Recorder
	recSince time.Time // when the recording began, for what it costs a minute
	o        Options
}

// Start builds the world, starts its agent and, if asked, its recording.
func Start(o Options) (*Game, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	sim := ecosystem.New(o.Entities, o.Seed)
	sim.Dt = float32(1 / o.Hz)
	if err := sim.SetBug(o.Bug); err != nil {
		return nil, err
	}
	opts := o.Agent
	opts.Game, opts.Schedule = "ecosystem", sim.Schedule
	agent := inspector.New(sim.World, opts)
	if err := agent.Start(); err != nil {
		return nil, err
	}
	g := &Game{Sim: sim, Agent: agent, o: o}
	if o.Record != "" {
		var rec *inspector.Recorder
		var err error
		if o.Keep != (recording.Keep{}) {
			rec, err = agent.RecordKept(o.Record, o.RecordHz, o.Keep)
		} else {
			rec, err = agent.Record(o.Record, o.RecordHz)
		}
		if err != nil {
			agent.Close()
			return nil, err
		}
		g.rec, g.recSince = rec, time.Now()
	}
	return g, nil
}

// ErrPanicked wraps the panic of a game's frame: Run recovered it, wrote
// the post-mortem, and closed the recording.
var ErrPanicked = errors.New("the game panicked")

// Run steps the game at its rate until Frames are done or stop closes.
// Call it from one goroutine; the world is touched only there. A panic in a
// system ends the run with ErrPanicked, after the post-mortem snapshot is
// written (when asked for) and the recording closed whole.
func (g *Game) Run(stop <-chan struct{}) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = g.postMortem(r)
		}
	}()
	ticker := time.NewTicker(time.Duration(float64(time.Second) / g.o.Hz))
	defer ticker.Stop()
	var busy time.Duration
	n, frame := 0, 0
	last := time.Now()
	for g.o.Frames == 0 || frame < g.o.Frames {
		select {
		case <-stop:
			return nil
		case <-ticker.C:
		}
		start := time.Now()
		g.Sim.Step()
		g.Agent.Sync()
		busy += time.Since(start)
		frame++
		n++
		if g.o.Status != nil && (time.Since(last) >= time.Second || frame == g.o.Frames) {
			g.status(busy / time.Duration(max(n, 1)))
			busy, n, last = 0, 0, time.Now()
		}
	}
	return nil
}

func (g *Game) status(frame time.Duration) {
	w := g.Sim.World
	st := ecs.Resource[ecosystem.Stats](w)
	rec := "-"
	if g.rec != nil {
		rec = fmt.Sprintf("%d frames recorded, %s", g.rec.Frames(), protocol.ByteSize(g.rec.Bytes()))
		if took := time.Since(g.recSince); took > time.Second {
			rec += fmt.Sprintf(" (+%s a minute)", protocol.ByteSize(int64(float64(g.rec.Coded())/took.Minutes())))
		}
	}
	fmt.Fprintf(g.o.Status, "tick %-7d entities %-8d herbivores %-7d predators %-6d frame %-9v clients %d  %s\n",
		w.Frame(), w.Len(), st.Herbivores, st.Predators, frame.Round(time.Microsecond), g.Agent.Clients(), rec)
}

// postMortem writes the world at the panic and closes the recording.
func (g *Game) postMortem(r any) error {
	tick := g.Sim.World.Frame()
	where := ""
	if g.o.PostMortem != "" {
		if err := <-g.Agent.WriteSnapshot(g.o.PostMortem); err != nil {
			where = fmt.Sprintf("; the post-mortem could not be written: %v", err)
		} else {
			where = "; the world at the panic is in " + g.o.PostMortem
		}
	}
	if g.rec != nil {
		_ = g.rec.Stop()
		g.rec = nil
	}
	return fmt.Errorf("%w at tick %d: %v%s\n%s", ErrPanicked, tick, r, where, debug.Stack())
}

// Close stops the recording (writing its index) and the agent. Call it
// after Run returned, on the goroutine that ran it.
func (g *Game) Close() error {
	var err error
	if g.rec != nil {
		err = g.rec.Stop()
		g.rec = nil
	}
	g.Agent.Close()
	return err
}
