// Command ecsinspect-broker runs the local NATS broker of `ecsinspect
// fleet` in a process of its own, so the ecsinspect command links no NATS
// server (it builds in half the time). ecsinspect starts it; a person does
// not need to.
//
// It reads its options (spec.Options, as JSON) from standard input, starts
// the broker on loopback, writes one line of JSON to standard output,
// {"port": N} or {"error": "..."}, and serves until its standard input
// closes (the ecsinspect that started it exited, however it exited).
//
//	echo '{"port": 0}' | ecsinspect-broker   # {"port":40123}, then serves until EOF
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
)

// maxOptions bounds the options read from standard input.
const maxOptions = 1 << 20

// started is the one line the broker writes once it serves, or fails to.
type started struct {
	Port  int    `json:"port,omitempty"`
	Error string `json:"error,omitempty"`
}

func main() { os.Exit(run(os.Stdin, os.Stdout)) }

// run serves the broker in and out describe; its exit code.
func run(in io.Reader, out io.Writer) int {
	r := bufio.NewReader(io.LimitReader(in, maxOptions))
	line, err := r.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return report(out, started{Error: fmt.Sprintf("ecsinspect-broker: reading the options: %v", err)})
	}
	var o localbroker.Options
	if err := json.Unmarshal(line, &o); err != nil {
		return report(out, started{Error: fmt.Sprintf("ecsinspect-broker: the options: %v", err)})
	}
	b, err := localbroker.Start(o)
	if err != nil {
		return report(out, started{Error: err.Error()})
	}
	defer b.Shutdown()
	if code := report(out, started{Port: b.Port()}); code != 0 {
		return code
	}
	_, _ = io.Copy(io.Discard, in) // until the parent closes our input, or exits
	return 0
}

// report writes the started line; 1 if it says an error.
func report(out io.Writer, s started) int {
	b, _ := json.Marshal(s)
	if _, err := fmt.Fprintf(out, "%s\n", b); err != nil || s.Error != "" {
		return 1
	}
	return 0
}
