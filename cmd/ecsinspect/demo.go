package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ecsinspect/ecsinspect/demo"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/ui"
)

func runDemo(args []string, out, errOut io.Writer, stop <-chan os.Signal) error {
	fs := commandFlags("demo", "Usage: ecsinspect demo [flags]\n\nRuns the demo ecosystem with an inspector agent and opens the terminal UI on it.\n\n", out)
	entities := fs.Int("entities", 10_000, "animals to start with (100 to 1000000; they breed and die, so the count moves)")
	hz := fs.Float64("hz", 60, "simulation steps per second")
	frames := fs.Int("frames", 0, "stop after this many frames (0: until you quit)")
	seed := fs.Uint64("seed", 1, "random seed; the same seed replays the same run")
	headless := fs.Bool("headless", false, "no UI: print a status line each second")
	listen := fs.String("listen", "127.0.0.1:0", "where the agent listens (port 0: a free one)")
	postMortem := fs.String("post-mortem", "ecosystem-crash.ecsrec", "if the game panics, write the world to this .ecsrec file (empty: don't)")
	bug := fs.String("bug", "", "turn on a deliberate bug to hunt with the debugger: starve (the grazing system now and then writes a negative Energy)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o := demo.Options{Entities: *entities, Hz: *hz, Seed: *seed, Frames: *frames, Agent: inspector.Options{Addr: *listen}, PostMortem: *postMortem, Bug: *bug}
	if err := o.Check(); err != nil {
		return usageError{err}
	}
	if *headless {
		o.Status = out
	}
	g, err := demo.Start(o)
	if err != nil {
		return err
	}
	quit := make(chan struct{})
	if *headless {
		fmt.Fprintf(out, "ecsinspect demo: %d animals at %g Hz, agent on %s (Ctrl-C to stop)\n", *entities, *hz, g.Agent.Addr())
		go func() {
			if _, ok := <-stop; ok {
				close(quit)
				g.Agent.Release() // a held pause does not keep Ctrl-C waiting
			}
		}()
		runErr := g.Run(quit)
		if err := g.Close(); runErr == nil {
			runErr = err
		}
		return runErr
	}
	// The game runs beside the UI; a panic in it ends the UI with its words.
	ran := make(chan error, 1)
	go func() {
		err := g.Run(quit)
		if err != nil {
			g.Agent.Close() // the UI sees the game gone, and says so
		}
		ran <- err
	}()
	uiErr := ui.Run(g.Agent.Addr(), "", errOut)
	close(quit)
	g.Agent.Release()
	runErr := <-ran
	if err := g.Close(); runErr == nil {
		runErr = err
	}
	if uiErr != nil {
		return uiErr
	}
	return runErr
}
