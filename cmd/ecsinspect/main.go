package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/ui"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintln(stdout, "ecsinspect", client.Version)
		return 0
	case "demo":
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(stop)
		err := runDemo(args[1:], stdout, stderr, stop)
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if err != nil {
			fmt.Fprintln(stderr, "ecsinspect demo:", err)
			return 2
		}
		return 0
	case "attach":
		err := runAttach(args[1:], stdout, stderr)
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if err != nil {
			fmt.Fprintln(stderr, "ecsinspect attach:", err)
			return 1
		}
		return 0
	case "open":
		if len(args) > 1 && (args[1] == "-h" || args[1] == "--help") {
			fmt.Fprintln(stdout, "Usage: ecsinspect open FILE.ecsrec\n\nReviews a recording or a snapshot: every view at any recorded tick.\nKeys: [ ] frames, { } keyframes, g G start and end, t go to a tick,\nc twice compares two ticks; the rest as in attach.")
			return 0
		}
		if err := ui.Open(args[1:]); err != nil {
			fmt.Fprintln(stderr, "ecsinspect open:", err)
			return 1
		}
		return 0
	case "record":
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt, syscall.SIGTERM) // either closes the file whole
		defer signal.Stop(stop)
		err := runRecord(args[1:], stdout, stop)
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if err != nil {
			fmt.Fprintln(stderr, "ecsinspect record:", err)
			return 1
		}
		return 0
	case "dump", "exec":
		var err error
		if args[0] == "dump" {
			err = runDump(args[1:], stdout)
		} else {
			err = runExec(args[1:], stdout)
		}
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if err != nil {
			fmt.Fprintf(stderr, "ecsinspect %s: %v\n", args[0], err)
			return 1
		}
		return 0
	default:
		fmt.Fprintf(stderr, "ecsinspect: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `ecsinspect: inspect worlds built on the ecs package

Usage:
  ecsinspect demo [--entities N] [--headless]
                        run the demo ecosystem with an agent and open the UI on it
  ecsinspect attach [ADDR] [--token T]
                        open the UI on a running game (default 127.0.0.1:7777,
                        or unix:/path/to/socket)
  ecsinspect open FILE.ecsrec
                        review a recording: scrub the timeline, compare ticks
  ecsinspect record ADDR -o FILE.ecsrec [--duration D] [--hz H]
                        record a running game for offline review
  ecsinspect dump ADDR|FILE.ecsrec [--query EXPR] [--entity 42v3] [--tick T] [--json]
                        print the world once, for scripts
  ecsinspect exec ADDR COMMAND...
                        pause, resume, step N, set, add, remove, despawn, spawn
  ecsinspect --version  print the version

Run "ecsinspect COMMAND --help" for a command's flags.
`)
}
