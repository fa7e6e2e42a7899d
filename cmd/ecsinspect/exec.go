package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
)

const execUsage = `Usage: ecsinspect exec ADDR [--token T] [--creds FILE] [--ca FILE] COMMAND...
       ecsinspect exec --all [--filter F] nats://host:4222 COMMAND...

Runs one command on a live game and exits 0, or non-zero with the agent's
message. ADDR is host:port, unix:/path, or one game on a broker,
nats://host:4222/INSTANCE. With --all, the command runs on every instance
on the broker (those passing --filter, terms on the discovery fields like
game=ecosystem,instance=demo-0*,hits>0), each result under its instance's
name; exec fails if any instance did. wait --all prints the first hit of any
instance, with "instance" in the JSON; a watchpoint set on the fleet pauses
only the instance it fires on. Commands:
  pause | resume | step N    the game stays paused after exec exits, with
                             no client connected, until a resume (from any
                             client that may edit) or the game's hold
                             timeout (Options.HoldTimeout, 10 minutes by
                             default); step: the game must be paused
  rewind 4200 | rewind -60   put the live world back to a tick the agent
                             holds in memory (or 60 ticks back): it pauses
                             there, and stays paused as after exec pause
  set 42v3 Position.X=3.5
  add 42v3 Frozen            add 42v3 'Health={"HP":10}'
  remove 42v3 Frozen
  despawn 42v3 [--recursive]
  parent 42v3 7v1            parent 42v3 none
  spawn 'Position={"X":1,"Y":2}' Velocity
  watch 'Energy.Value<0'     a watchpoint: the game pauses when it fires,
                             and stays paused as after exec pause, client
                             or not; prints its number (see PROTOCOL.md for the forms:
                             42v3 Energy.Value<0, despawn 42v3, add Fleeing,
                             system hunt > 2ms, frame > 20ms, dangling,
                             resource Grid.Cells[12])
  watch --log EXPR           one that only tells, without pausing; exec
                             sets it with --keep, so it outlives exec's
                             connection (the UI's goes when the UI quits)
  unwatch N | watch-off N | watch-on N
  wait [--timeout 60s] [--log] [N]
                             block until a watchpoint that pauses fires
                             (--log: any, log-only ones too; N: watchpoint
                             N only, whether it pauses or logs); print the
                             hit as JSON and exit 0 (1 on timeout)
  watches [--json]           list the watchpoints: id, kind, what it does,
                             hits, who set it, and why the agent suspended
                             one (its checks did not fit the frame's budget)
  hits [--by writer] [--json]
                             each watchpoint's hits since it was set, by
                             the system that made it true and the component:
                             count, first and last tick, the tested field's
                             range, the newest entity; and the narrower
                             watchpoint they point to, if one writer stands out
`

// runExec runs one headless command against an agent, or every instance
// of a fleet (--all).
func runExec(args []string, out io.Writer) error {
	token, filter, all := "", "", false
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--token" || a == "-token" || a == "--filter" || a == "-filter":
			if i+1 >= len(args) {
				return usageError{fmt.Errorf("%s needs a value", a)}
			}
			if strings.HasSuffix(a, "token") {
				token = args[i+1]
			} else {
				filter = args[i+1]
			}
			i++
		case a == "--creds" || a == "--ca":
			if i+1 >= len(args) {
				return usageError{fmt.Errorf("%s needs a file", a)}
			}
			brokerFile(a, args[i+1])
			i++
		case strings.HasPrefix(a, "--token="):
			token = strings.TrimPrefix(a, "--token=")
		case strings.HasPrefix(a, "--filter="):
			filter = strings.TrimPrefix(a, "--filter=")
		case a == "--all" || a == "-all":
			all = true
		case a == "-h" || a == "--help":
			fmt.Fprint(out, execUsage)
			return errHelp
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) < 2 {
		return usageError{fmt.Errorf("want an address and a command\n\n%s", execUsage)}
	}
	if filter != "" && !all {
		return usageError{errors.New("--filter picks instances for --all")}
	}
	if all {
		return execAll(rest[0], filter, token, rest[1:], out)
	}
	return execOne(client.GameAt(rest[0], token), rest[1:], out)
}

// execOne runs one command (args: its words) on one game.
func execOne(g client.Game, args []string, out io.Writer) error {
	switch args[0] {
	case "wait":
		return runWait(g, args[1:], out)
	case "watches":
		return runWatches(g, args[1:], out)
	case "hits":
		return runHits(g, args[1:], out)
	}
	build, what, err := client.ParseCommand(args)
	if err != nil {
		return err
	}
	// exec's connection ends at once: what it sets stays (client.Held).
	set := build
	build = func(id uint32) protocol.Message { return client.Held(set(id)) }
	o, err := g.Dial()
	if err != nil {
		return err
	}
	defer o.Close()
	r, err := o.Do(build)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if what == "rewind" { // an exact rewind replays frames: wait till the game pauses on the tick
		s, err := o.WaitPaused(time.Minute)
		if err != nil {
			return fmt.Errorf("rewind: %s; %w", r.Message, err)
		}
		r.Message += fmt.Sprintf("; paused at tick %d", s.Tick)
	}
	printable.Clean(r)
	switch {
	case r.Entity != 0:
		fmt.Fprintln(out, r.Entity)
	case r.Watch != 0: // its id alone on the first line, for scripts; then what the agent found in the past it keeps
		fmt.Fprintln(out, r.Watch)
		if r.Message != "" {
			fmt.Fprintln(out, "past: "+r.Message)
		}
	case r.Message != "":
		fmt.Fprintln(out, what+": "+r.Message)
	default:
		fmt.Fprintln(out, what+": ok")
	}
	return nil
}

// runWait blocks until a watchpoint fires and prints the hit as JSON.
func runWait(g client.Game, args []string, out io.Writer) error {
	w, err := parseWait(args)
	if err != nil {
		return err
	}
	o, err := g.Dial()
	if err != nil {
		return err
	}
	defer o.Close()
	hit, err := o.WaitHitOf(w.timeout, w.accepts)
	if err != nil {
		return fmt.Errorf("wait: %s fired in %v (%v)", w.what(), w.timeout, err)
	}
	return writeJSON(out, hitJSON(hit))
}

// waitArgs are exec wait's flags.
type waitArgs struct {
	timeout time.Duration
	logged  bool   // hits of log-only watchpoints end the wait too
	watch   uint32 // only this watchpoint's hits end it (0: any)
}

// accepts reports whether a hit ends the wait.
func (w waitArgs) accepts(h *protocol.WatchHit) bool {
	if w.watch != 0 {
		return h.Watch == w.watch
	}
	return w.logged || h.Paused
}

// what names what the wait waits for, for its timeout's error.
func (w waitArgs) what() string {
	switch {
	case w.watch != 0:
		return fmt.Sprintf("watchpoint %d never", w.watch)
	case w.logged:
		return "no watchpoint"
	}
	return "no pausing watchpoint"
}

// parseWait reads exec wait's flags (one instance's or --all's).
func parseWait(args []string) (waitArgs, error) {
	fs := flag.NewFlagSet("exec wait", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var w waitArgs
	fs.DurationVar(&w.timeout, "timeout", time.Minute, "give up after this long")
	fs.BoolVar(&w.logged, "log", false, "a hit of a log-only watchpoint ends the wait too")
	if err := fs.Parse(args); err != nil {
		return w, usageError{fmt.Errorf("wait: %v\n\n%s", err, execUsage)}
	}
	switch fs.NArg() {
	case 0:
	case 1:
		n, err := strconv.ParseUint(fs.Arg(0), 10, 32)
		if err != nil || n == 0 {
			return w, usageError{fmt.Errorf("wait: %q is not a watchpoint's number (exec watches lists them)", fs.Arg(0))}
		}
		w.watch = uint32(n)
	default:
		return w, usageError{fmt.Errorf("wait takes one watchpoint's number at most, got %q", fs.Args())}
	}
	return w, nil
}

// watchHitJSON is a hit as exec wait prints it: the keys are stable.
type watchHitJSON struct {
	Watch     uint32          `json:"watch"`
	Expr      string          `json:"expr"`
	Tick      uint64          `json:"tick"`
	Entity    string          `json:"entity,omitempty"`
	By        string          `json:"by,omitempty"`
	Component string          `json:"component,omitempty"`
	Old       *protocol.Value `json:"old,omitempty"`
	Value     *protocol.Value `json:"value,omitempty"`
	Matches   int             `json:"matches,omitempty"`
	Paused    bool            `json:"paused"`
	Text      string          `json:"text"`
}

func hitJSON(h *protocol.WatchHit) watchHitJSON {
	out := watchHitJSON{Watch: h.Watch, Expr: h.Expr, Tick: h.Tick, By: h.By, Component: h.Component,
		Old: h.Old, Value: h.Value, Matches: h.Matches, Paused: h.Paused, Text: h.Text}
	if h.Entity != 0 {
		out.Entity = h.Entity.String()
	}
	return out
}

// watchJSON is a watchpoint as exec watches --json prints it: the keys are
// stable.
type watchJSON struct {
	ID        uint32 `json:"id"`
	Expr      string `json:"expr"`
	Kind      string `json:"kind"`
	Log       bool   `json:"log"`
	On        bool   `json:"on"`
	Hits      uint64 `json:"hits"`
	Owner     int    `json:"owner"`
	Keep      bool   `json:"keep"`
	Suspended string `json:"suspended,omitempty"`
}

// runWatches lists the agent's watchpoints, from its summary.
func runWatches(g client.Game, args []string, out io.Writer) error {
	fs := commandFlags("watches", "", out)
	asJSON := fs.Bool("json", false, "print JSON: a list of {id, expr, kind, log, on, hits, owner, keep, suspended}")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := summaryAt(g, "watches")
	if err != nil {
		return err
	}
	list := make([]watchJSON, 0, len(s.Watches))
	for _, w := range s.Watches {
		list = append(list, watchJSON{ID: w.ID, Expr: w.Expr, Kind: w.Kind, Log: w.Log, On: w.On, Hits: w.Hits, Owner: w.Owner, Keep: w.Keep, Suspended: w.Suspended})
	}
	if *asJSON {
		return writeJSON(out, list)
	}
	printable.Clean(list)
	if len(list) == 0 {
		fmt.Fprintln(out, "no watchpoints")
		return nil
	}
	for _, w := range list {
		state := "pauses"
		switch {
		case !w.On:
			state = "off"
		case w.Suspended != "":
			state = "SUSPENDED"
		case w.Log:
			state = "logs"
		}
		fmt.Fprintf(out, "%d\t%s\t%s\t%d hits\tclient %d\t%s\n", w.ID, w.Kind, state, w.Hits, w.Owner, w.Expr)
		if w.Suspended != "" {
			fmt.Fprintf(out, "\t%s\n", w.Suspended)
		}
	}
	return nil
}
