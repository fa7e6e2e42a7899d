package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker/spec"
	"github.com/ecsinspect/ecsinspect/inspector"
	_ "github.com/ecsinspect/ecsinspect/inspector/broker" // Options.Broker's transport
)

const fleetUsage = `Usage: ecsinspect fleet [--instances N] [--entities N] [--port P] [--bug starve] [--allow NAMES] [--open]

Starts a NATS broker inside this process on 127.0.0.1, prints its URL, and
runs N demo games in this process, each with its own world and seed, that
reach the UI through the broker, until Ctrl-C. Then:

  ecsinspect attach nats://127.0.0.1:4222          the Fleet view
  ecsinspect dump --all nats://127.0.0.1:4222      one line an instance
  ecsinspect dump --all --query 'Energy.Value<-1' nats://127.0.0.1:4222

The broker lets in only its users: one per game, which may speak only for
its own instance, and the clients named by --clients (default ui), which
may open only their own sessions; the games share a random fleet token, so
sessions are sealed and announcements signed. The client's user, password
and token are saved for this broker in a file only you can read (see
--print-config for a nats-server configuration of the same), so the
commands above need no flags; another user of the machine gets nothing.
--allow NAMES makes a user for each of your own games' instances, and
prints how they join. --open runs the broker with no users and no token,
as anyone on the machine may then use it.

With --bug starve, one instance (which, the seed decides) has the demo's
deliberate bug: find it from the fleet.
`

// runFleet runs a local fleet: a broker and N demo games.
func runFleet(args []string, out io.Writer, stop <-chan os.Signal) error {
	fs := commandFlags("fleet", fleetUsage, out)
	n := fs.Int("instances", 20, "demo games to run (0 to 500; 0: a broker for your own games, with --allow)")
	entities := fs.Int("entities", 2000, "animals each game starts with (100 to 1000000)")
	hz := fs.Float64("hz", 30, "steps per second of each game")
	port := fs.Int("port", 4222, "the broker's port (0: a free one; taken: a free one, and it says so)")
	seed := fs.Uint64("seed", 1, "the first game's seed; the others count on from it")
	bug := fs.String("bug", "", "plant the demo's deliberate bug (starve) in one instance")
	frames := fs.Int("frames", 0, "stop after this many frames of each game (0: until Ctrl-C)")
	clients := fs.String("clients", "ui", "the client users to make, comma-separated (each may open only its own sessions)")
	allow := fs.String("allow", "", "instance names of your own games to make users for, comma-separated")
	open := fs.Bool("open", false, "no users, no token: anyone on this machine may read and change every game")
	printConfig := fs.Bool("print-config", false, "print a nats-server authorization block for the same users and permissions, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 0 || *n > 500 {
		return usageError{fmt.Errorf("--instances %d: want 0 to 500", *n)}
	}
	names := make([]string, *n)
	for i := range names {
		names[i] = fmt.Sprintf("demo-%02d", i+1)
	}
	auth, err := newFleetAuth(fleet.DefaultPrefix, append(names, splitNames(*allow)...), splitNames(*clients))
	if err != nil {
		return usageError{err}
	}
	if *printConfig {
		fmt.Fprint(out, auth.natsConfig())
		return nil
	}
	bo := spec.Options{Port: *port, Users: auth.users()}
	if *open {
		auth, bo.Users = nil, nil
	}
	b, err := startBroker(bo, out)
	if err != nil && *port != 0 {
		fmt.Fprintf(out, "fleet: port %d is taken (%v); using a free one\n", *port, err)
		bo.Port = 0
		b, err = startBroker(bo, out)
	}
	if err != nil {
		return err
	}
	defer b.Shutdown()
	hostport := fmt.Sprintf("127.0.0.1:%d", b.Port())
	if auth != nil {
		ui := auth.clients[0]
		saved, err := client.SaveCredentials(hostport, client.SavedCredentials{User: ui.Name, Password: ui.Password, Token: auth.token})
		if err != nil {
			return fmt.Errorf("fleet: saving the client's credentials: %w", err)
		}
		defer func() {
			if err := client.ForgetCredentials(hostport); err != nil {
				fmt.Fprintf(out, "fleet: the client's credentials for %s stay saved in %s: forgetting them failed (%v); remove that entry by hand\n", hostport, saved, err)
			}
		}()
		fmt.Fprintf(out, "fleet: users and permissions on; the client %s's credentials and the fleet token saved in %s\n", ui.Name, saved)
		for _, c := range auth.clients[1:] {
			fmt.Fprintf(out, "fleet: client %s: --token %s %s\n", c.Name, auth.token, spec.URLAs(c, b.Port()))
		}
		for _, name := range splitNames(*allow) {
			fmt.Fprintf(out, "fleet: your game %s joins with inspector.Options{Broker: %q, Instance: %q, Token: %q}\n", name, spec.URLAs(auth.games[name], b.Port()), name, auth.token)
		}
	} else {
		fmt.Fprintln(out, "fleet: --open: no users, no token: anyone on this machine may read and change every game")
	}
	buggy := -1
	if *bug != "" {
		buggy = int(*seed % uint64(*n))
	}
	var games []*demo.Game
	for i := range *n {
		o := demo.Options{Entities: *entities, Hz: *hz, Seed: *seed + uint64(i), Frames: *frames,
			Agent: inspector.Options{Addr: "", Broker: spec.URL(b.Port()), Instance: names[i]}}
		if auth != nil {
			o.Agent.Broker, o.Agent.Token = spec.URLAs(auth.games[names[i]], b.Port()), auth.token
		}
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
	fmt.Fprintf(out, "fleet: broker on %s, %d demo games (demo-01 to demo-%02d), %d animals each at %g Hz\n", spec.URL(b.Port()), *n, *n, *entities, *hz)
	fmt.Fprintf(out, "fleet: ecsinspect attach %s   (Ctrl-C to stop)\n", spec.URL(b.Port()))
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
	if len(games) > 0 { // a broker alone (--instances 0) serves until Ctrl-C
		go func() { wg.Wait(); close(done) }()
	}
	select {
	case <-stop:
		fmt.Fprintln(out, "fleet: interrupted")
	case <-done:
	}
	close(quit)
	for _, g := range games {
		g.Agent.Release() // a game paused on a fleet watchpoint ends too
	}
	wg.Wait()
	for _, g := range games {
		errs = append(errs, g.Close())
	}
	time.Sleep(100 * time.Millisecond) // the goodbyes reach the broker's clients
	return errors.Join(errs...)
}
