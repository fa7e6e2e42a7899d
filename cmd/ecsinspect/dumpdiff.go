package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// runDiff prints what changed in a recording between two ticks.
func runDiff(args []string, from string, asJSON bool, out io.Writer) error {
	if len(args) != 2 {
		return usageError{fmt.Errorf("want a recording and two ticks: ecsinspect dump FILE.ecsrec --diff T1 T2")}
	}
	t1, err1 := strconv.ParseUint(from, 10, 64)
	t2, err2 := strconv.ParseUint(args[1], 10, 64)
	if err1 != nil || err2 != nil {
		return usageError{fmt.Errorf("--diff wants two ticks, like --diff 100 200; got %q and %q", from, args[1])}
	}
	d, err := diffFile(args[0], t1, t2)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	printDiff(out, d)
	return nil
}

func printDiff(out io.Writer, d *protocol.WorldDiff) {
	for _, line := range client.DiffLines(d, 20) {
		fmt.Fprintln(out, line)
	}
}
