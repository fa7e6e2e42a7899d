package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/demo"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
	"github.com/ecsinspect/ecsinspect/inspector"
	_ "github.com/ecsinspect/ecsinspect/inspector/broker" // Options.Broker's transport
)

const fleetUsage = `Usage: ecsinspect fleet [--instances N] [--entities N] [--port P] [--bug starve]

Starts a NATS broker inside this process on 127.0.0.1, prints its URL, and
runs N demo games in this process, each with its own world and seed, that
reach the UI through the broker, until Ctrl-C. Then:

  ecsinspect attach nats://127.0.0.1:4222          the Fleet view
  ecsinspect dump --all nats://127.0.0.1:4222      one line an instance
  ecsinspect dump --all --query 'Energy.Value<-1' nats://127.0.0.1:4222

With --bug starve, one instance (which, the seed decides) has the demo's
deliberate bug: find it from the fleet.
`

// runFleet runs a local fleet: a broker and N demo games.
func runFleet(args []string, out io.Writer, stop <-chan os.Signal) error {
	fs := flag.NewFlagSet("fleet", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() { fmt.Fprint(out, fleetUsage); fs.PrintDefaults() }
	n := fs.Int("instances", 20, "demo games to run (1 to 500)")
	entities := fs.Int("entities", 2000, "animals each game starts with (100 to 1000000)")
	hz := fs.Float64("hz", 30, "steps per second of each game")
	port := fs.Int("port", 4222, "the broker's port (0: a free one; taken: a free one, and it says so)")
	seed := fs.Uint64("seed", 1, "the first game's seed; the others count on from it")
	bug := fs.String("bug", "", "plant the demo's deliberate bug (starve) in one instance")
	frames := fs.Int("frames", 0, "stop after this many frames of each game (0: until Ctrl-C)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 || *n > 500 {
		return usageError{fmt.Errorf("--instances %d: want 1 to 500", *n)}
	}
	b, err := localbroker.Start(localbroker.Options{Port: *port})
	if err != nil && *port != 0 {
		fmt.Fprintf(out, "fleet: port %d is taken (%v); using a free one\n", *port, err)
		b, err = localbroker.Start(localbroker.Options{})
	}
	if err != nil {
		return err
	}
	defer b.Shutdown()
	buggy := -1
	if *bug != "" {
		buggy = int(*seed % uint64(*n))
	}
	var games []*demo.Game
	for i := range *n {
		o := demo.Options{Entities: *entities, Hz: *hz, Seed: *seed + uint64(i), Frames: *frames,
			Agent: inspector.Options{Addr: "", Broker: b.URL(), Instance: fmt.Sprintf("demo-%02d", i+1)}}
		if i == buggy {
			o.Bug = *bug
		}
		if err := o.Check(); err != nil {
			return usageError{err}
		}
		g, err := demo.Start(o)
		if err != nil {
			for _, g := range games {
				_ = g.Close()
			}
			return err
		}
		games = append(games, g)
	}
	fmt.Fprintf(out, "fleet: broker on %s, %d demo games (demo-01 to demo-%02d), %d animals each at %g Hz\n", b.URL(), *n, *n, *entities, *hz)
	fmt.Fprintf(out, "fleet: ecsinspect attach %s   (Ctrl-C to stop)\n", b.URL())
	quit := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, len(games))
	for i, g := range games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.Run(quit)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-stop:
		fmt.Fprintln(out, "fleet: interrupted")
	case <-done:
	}
	close(quit)
	for _, g := range games {
		g.Agent.Release() // a game paused on a fleet watchpoint ends too
	}
	<-done
	for _, g := range games {
		errs = append(errs, g.Close())
	}
	time.Sleep(100 * time.Millisecond) // the goodbyes reach the broker's clients
	return errors.Join(errs...)
}
