package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ecsinspect/ecsinspect/cmd/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/ui"
)

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
		return usageError{fmt.Errorf("--entities %d: want 100 to 1000000", *entities)}
	}
	if *hz <= 0 || *hz > 1000 {
		return usageError{fmt.Errorf("--hz %v: want more than 0, at most 1000", *hz)}
	}
	d := ecosystem.New(*entities, *seed)
	d.Dt = float32(1 / *hz)
	agent := inspector.New(d.World, inspector.Options{Addr: *listen, Game: "ecosystem", Schedule: d.Schedule})
	if err := agent.Start(); err != nil {
		return err
	}
	defer agent.Close()

	quit := make(chan struct{})
	loopDone := make(chan struct{})
	status := func(frame int, busy time.Duration, n int) {
		if *headless {
			st := ecs.Resource[ecosystem.Stats](d.World)
			fmt.Fprintf(out, "tick %-7d entities %-8d herbivores %-7d predators %-6d births %-7d deaths %-7d eaten %-6d frame %v  agent %s\n",
				frame, d.World.Len(), st.Herbivores, st.Predators, st.Births, st.Deaths, st.Eaten, (busy / time.Duration(max(n, 1))).Round(time.Microsecond), agent.Addr())
		}
	}
	if *headless {
		fmt.Fprintf(out, "ecsinspect demo: %d animals at %g Hz, agent on %s (Ctrl-C to stop)\n", *entities, *hz, agent.Addr())
	}
	go func() {
		defer close(loopDone)
		ticker := time.NewTicker(time.Duration(float64(time.Second) / *hz))
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
			d.Step()
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
	err := ui.Run(agent.Addr(), "", errOut)
	close(quit)
	<-loopDone
	return err
}
