package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ecsinspect/ecsinspect/client"
)

const execUsage = `Usage: ecsinspect exec ADDR [--token T] COMMAND...

Runs one command on a live game and exits 0, or non-zero with the agent's
message. Commands:
  pause | resume | step N    (step: the game must be paused by a client
                             that stays connected, the UI say)
  set 42v3 Position.X=3.5
  add 42v3 Frozen            add 42v3 'Health={"HP":10}'
  remove 42v3 Frozen
  despawn 42v3 [--recursive]
  parent 42v3 7v1            parent 42v3 none
  spawn 'Position={"X":1,"Y":2}' Velocity
`

// runExec runs one headless command against an agent.
func runExec(args []string, out io.Writer) error {
	token := ""
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--token" || a == "-token":
			if i+1 >= len(args) {
				return usageError{errors.New("--token needs a value")}
			}
			token = args[i+1]
			i++
		case strings.HasPrefix(a, "--token="):
			token = strings.TrimPrefix(a, "--token=")
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
	build, what, err := client.ParseCommand(rest[1:])
	if err != nil {
		return err
	}
	o, err := client.Dial(rest[0], token)
	if err != nil {
		return err
	}
	defer o.Close()
	r, err := o.Do(build)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if r.Entity != 0 {
		fmt.Fprintln(out, r.Entity)
	} else {
		fmt.Fprintln(out, what+": ok")
	}
	return nil
}
