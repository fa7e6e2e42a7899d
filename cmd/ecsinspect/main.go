package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/ui"
)

func main() {
	stop := startProfile()
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one subcommand: its name, what it runs, and whether it wants
// the interrupt signals (Ctrl-C and SIGTERM) to end it cleanly.
type command struct {
	name    string
	run     func(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) error
	signals bool
}

// commands is every subcommand: one table, one way out.
var commands = []command{
	{name: "demo", run: runDemo, signals: true},
	{name: "attach", run: func(args []string, out, errOut io.Writer, _ <-chan os.Signal) error {
		return runAttach(args, out, errOut)
	}},
	{name: "open", run: func(args []string, out, _ io.Writer, _ <-chan os.Signal) error { return runOpen(args, out) }},
	{name: "record", run: func(args []string, out, _ io.Writer, stop <-chan os.Signal) error { return runRecord(args, out, stop) }, signals: true},
	{name: "dump", run: func(args []string, out, _ io.Writer, _ <-chan os.Signal) error { return runDump(args, out) }},
	{name: "exec", run: func(args []string, out, _ io.Writer, _ <-chan os.Signal) error { return runExec(args, out) }},
	{name: "fleet", run: func(args []string, out, _ io.Writer, stop <-chan os.Signal) error { return runFleet(args, out, stop) }, signals: true},
	{name: "token", run: func(args []string, out, _ io.Writer, _ <-chan os.Signal) error { return runToken(args, out) }},
}

// runToken prints a new random token, for Options.Token and --token.
func runToken(args []string, out io.Writer) error {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprintln(out, "ecsinspect token: print a new random token (32 characters, 192 bits) for a game's Options.Token and clients' --token")
			return nil
		}
		return usageError{errors.New("token takes no arguments")}
	}
	fmt.Fprintln(out, protocol.NewToken())
	return nil
}

// usageError is a mistake in how a command was called: exit code 2.
type usageError struct{ error }

// run runs the command line and returns the exit code: 0, 1 when the
// command failed, 2 when it was called wrong.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(stdout, "ecsinspect", client.Version)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		var stop chan os.Signal
		if c.signals {
			stop = make(chan os.Signal, 1)
			signal.Notify(stop, os.Interrupt, syscall.SIGTERM) // either ends the command cleanly
			defer signal.Stop(stop)
		}
		err := c.run(args[1:], stdout, stderr, stop)
		var ue usageError
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &ue), isFlagError(err):
			fmt.Fprintf(stderr, "ecsinspect %s: %v\n", c.name, err) // our own usage text, lines and all
			return 2
		default: // may carry a game's or a file's words
			fmt.Fprintf(stderr, "ecsinspect %s: %s\n", c.name, printable.Text(err.Error()))
			return 1
		}
	}
	fmt.Fprintf(stderr, "ecsinspect: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// isFlagError reports whether err came from parsing flags.
func isFlagError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "flag provided but not defined") || strings.HasPrefix(msg, "invalid value") || strings.HasPrefix(msg, "bad flag syntax") || strings.HasPrefix(msg, "flag needs an argument")
}

// runOpen reviews a recording in the UI.
func runOpen(args []string, out io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(out, "Usage: ecsinspect open FILE.ecsrec\n\nReviews a recording or a snapshot: every view at any recorded tick.\nKeys: [ ] frames, { } keyframes, g G start and end, t go to a tick,\nc twice compares two ticks; the rest as in attach.")
		return flag.ErrHelp
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageError{errors.New("want one .ecsrec file: ecsinspect open FILE.ecsrec")}
	}
	return ui.Open(args)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `ecsinspect: inspect worlds built on the ecs package

Usage:
  ecsinspect demo [--entities N] [--headless]
                        run the demo ecosystem with an agent and open the UI on it
  ecsinspect attach [ADDR] [--token T]
                        open the UI on a running game (default 127.0.0.1:7777,
                        or unix:/path/to/socket, or nats://host:4222/INSTANCE);
                        on a broker's URL, nats://host:4222, the Fleet view
  ecsinspect open FILE.ecsrec
                        review a recording: scrub the timeline, compare ticks
  ecsinspect record ADDR -o FILE.ecsrec [--duration D] [--frames N] [--hz H]
                        record a running game for offline review
  ecsinspect dump ADDR|FILE.ecsrec [--query EXPR] [--entity 42v3] [--tick T] [--json]
                        print the world once, for scripts (--all nats://...:
                        every instance on a broker)
  ecsinspect exec ADDR COMMAND...
                        pause, resume, step N, rewind T|-N, set, add, remove,
                        despawn, spawn, parent, watch EXPR, unwatch N,
                        wait (until a watchpoint fires); --all nats://...:
                        on every instance on a broker
  ecsinspect fleet [--instances N]
                        a local fleet: a broker and N demo games in one process
  ecsinspect token      print a new random token for Options.Token and --token
                        (a token must be random: 20+ characters, 10 different)
  ecsinspect --version  print the version

Run "ecsinspect COMMAND --help" for a command's flags.
`)
}
