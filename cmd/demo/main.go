package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/ecsinspect/ecsinspect/demo"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/inspector"
	_ "github.com/ecsinspect/ecsinspect/inspector/broker" // Options.Broker's transport
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	if err := run(os.Args[1:], os.Stdout, stop); err != nil {
		if err == flag.ErrHelp {
			return
		}
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

type options struct {
	listen, token, record string
	keep                  recording.Keep
	postMortem            string
	entities, frames      int
	hz, recordHz          float64
	seed                  uint64
	readOnly, bench       bool
	bug                   string
	broker, instance      string
}

func run(args []string, out io.Writer, stop <-chan os.Signal) error {
	var o options
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.listen, "listen", inspector.DefaultAddr, "where the agent listens: host:port or unix:/path (empty, with --broker: no socket)")
	fs.StringVar(&o.broker, "broker", "", "also reach clients through this NATS broker: nats://host:4222 (the agent dials out; see ecsinspect attach nats://...)")
	fs.StringVar(&o.instance, "instance", "", "with --broker: this game's name among the fleet's (default: the host's name and the pid)")
	fs.IntVar(&o.entities, "entities", 10_000, "animals to start with (100 to 1000000)")
	fs.Float64Var(&o.hz, "hz", 60, "fixed timestep: steps per second")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed: the same seed replays the same run")
	fs.StringVar(&o.token, "token", "", "a token clients must present")
	fs.BoolVar(&o.readOnly, "read-only", false, "refuse every command that changes the world")
	fs.StringVar(&o.record, "record", "", "record the run to this .ecsrec file: every entity and value, closed cleanly on Ctrl-C or SIGTERM")
	fs.Float64Var(&o.recordHz, "record-hz", 0, "with --record: frames recorded per second (0: every frame)")
	fs.Func("keep", "with --record: a flight recording that keeps only the last of the run, 10m or 2GB (--record then names a directory of segments, opened as one)", func(v string) error {
		k, err := recording.ParseKeep(v)
		o.keep = k
		return err
	})
	fs.StringVar(&o.postMortem, "post-mortem", "ecosystem-crash.ecsrec", "if the game panics, write the world to this .ecsrec file (empty: don't)")
	fs.IntVar(&o.frames, "frames", 0, "stop after this many frames (0: until Ctrl-C)")
	fs.BoolVar(&o.bench, "bench", false, "with --frames: measure frame times with and without the agent")
	fs.StringVar(&o.bug, "bug", "", "turn on a deliberate bug to hunt with the debugger: starve (the grazing system now and then writes a negative Energy)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case o.entities < 100 || o.entities > 1_000_000:
		return fmt.Errorf("--entities %d: want 100 to 1000000", o.entities)
	case o.hz <= 0 || o.hz > 1000:
		return fmt.Errorf("--hz %v: want more than 0, at most 1000", o.hz)
	case o.bench && o.frames <= 0:
		return fmt.Errorf("--bench needs --frames N")
	case o.keep != (recording.Keep{}) && o.record == "":
		return fmt.Errorf("--keep needs --record DIR: the flight recording's directory")
	}
	if o.bench {
		return bench(o, out)
	}
	return serve(o, out, stop)
}

func newSim(o options) *ecosystem.Sim {
	sim := ecosystem.New(o.entities, o.seed)
	sim.Dt = float32(1 / o.hz)
	return sim
}

func serve(o options, out io.Writer, stop <-chan os.Signal) error {
	g, err := demo.Start(demo.Options{Entities: o.entities, Hz: o.hz, Seed: o.seed, Frames: o.frames,
		Agent:  inspector.Options{Addr: o.listen, Token: o.token, ReadOnly: o.readOnly, Broker: o.broker, Instance: o.instance},
		Record: o.record, RecordHz: o.recordHz, Keep: o.keep, PostMortem: o.postMortem, Status: out, Bug: o.bug})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "demo: %d animals at %g Hz, seed %d; agent on %s\n", o.entities, o.hz, o.seed, g.Agent.Addr())
	if o.broker != "" {
		t, _ := fleet.ParseURL(o.broker) // checked by Start
		fmt.Fprintf(out, "demo: on the broker %s as %s\n", t, g.Agent.Instance())
	}
	quit := make(chan struct{})
	go func() {
		if _, ok := <-stop; ok {
			fmt.Fprintln(out, "demo: interrupted")
			close(quit)
			g.Agent.Release() // a held pause does not keep Ctrl-C waiting
		}
	}()
	runErr := g.Run(quit)
	if err := g.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil && o.record != "" {
		fmt.Fprintln(out, "demo: recording written to", o.record)
	}
	return runErr
}

// bench runs the frames as fast as it can, without the agent and then with
// one client subscribed to the summary, and prints the frame times.
func bench(o options, out io.Writer) error {
	// Two worlds from one seed, one with the agent and a client on the
	// summary, one without: both warm up alike, then run in alternating
	// blocks of frames (the order flips each block), so both see the same
	// world states and the machine's drift falls on both.
	plain, watched := newSim(o), newSim(o)
	agent := inspector.New(watched.World, inspector.Options{Addr: "127.0.0.1:0", Game: "ecosystem", Schedule: watched.Schedule})
	if err := agent.Start(); err != nil {
		return err
	}
	defer agent.Close()
	done, err := subscriber(agent.Addr())
	if err != nil {
		return err
	}
	defer done()
	step := func(sim *ecosystem.Sim, a *inspector.Agent) time.Duration {
		start := time.Now()
		sim.Step()
		if a != nil {
			a.Sync()
		}
		return time.Since(start)
	}
	for range 10 { // equal warm-up; the client's subscription arrives meanwhile
		step(plain, nil)
		step(watched, agent)
		time.Sleep(time.Millisecond)
	}
	const block = 10
	off := make([]time.Duration, 0, o.frames)
	on := make([]time.Duration, 0, o.frames)
	for b := 0; len(off) < o.frames; b++ {
		n := min(block, o.frames-len(off))
		runOff := func() {
			for range n {
				off = append(off, step(plain, nil))
			}
		}
		runOn := func() {
			for range n {
				on = append(on, step(watched, agent))
			}
		}
		if b%2 == 0 {
			runOff()
			runOn()
		} else {
			runOn()
			runOff()
		}
	}
	fmt.Fprintf(out, "bench: %d frames of %d animals, seed %d, with and without the agent in alternating blocks of %d\n", o.frames, o.entities, o.seed, block)
	mOff, mOn := stats(out, "without the agent", off), stats(out, "with one client on the summary", on)
	fmt.Fprintf(out, "agent overhead on the mean frame: %+.1f%% (%.3fx)\n", 100*(float64(mOn)/float64(mOff)-1), float64(mOn)/float64(mOff))
	return nil
}

func stats(out io.Writer, label string, ts []time.Duration) time.Duration {
	sorted := append([]time.Duration(nil), ts...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	var sum time.Duration
	for _, t := range ts {
		sum += t
	}
	mean := sum / time.Duration(len(ts))
	p := func(q float64) time.Duration { return sorted[min(int(q*float64(len(sorted))), len(sorted)-1)] }
	fmt.Fprintf(out, "%-32s mean %-10v p50 %-10v p99 %v\n", label, mean.Round(time.Microsecond), p(0.50).Round(time.Microsecond), p(0.99).Round(time.Microsecond))
	return mean
}

// subscriber connects a client that subscribes to the summary at 10 Hz and
// reads everything, as a UI would.
func subscriber(addr string) (func(), error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c := protocol.NewConn(nc)
	if _, err := protocol.ClientHandshake(c, protocol.Hello{Client: "bench"}, 2*time.Second); err != nil {
		nc.Close()
		return nil, err
	}
	if err := c.Send(&protocol.Subscribe{ID: 1, What: protocol.SubSummary, Hz: 10}); err != nil {
		nc.Close()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := c.Receive(); err != nil {
				return
			}
		}
	}()
	return func() { nc.Close(); <-done }, nil
}
