package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
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
		return writeDiffJSON(out, d)
	}
	printable.Clean(d)
	printDiff(out, d)
	return nil
}

// writeDiffJSON writes the diff as one JSON object with an entity's
// changes to a line: a diff of a busy world is tens of megabytes, which an
// indenting encoder would hold twice and walk again (6 s at 100k
// entities); this streams it as it goes, and no line is huge.
func writeDiffJSON(out io.Writer, d *recording.WorldDiff) error {
	w := bufio.NewWriterSize(out, 1<<16)
	field := func(name string, v any, last bool) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		sep := ",\n"
		if last {
			sep = "\n"
		}
		_, err = fmt.Fprintf(w, "  %q: %s%s", name, b, sep)
		return err
	}
	list := func(name string, n int, item func(i int) any, last bool) error {
		if n == 0 {
			return field(name, []any{}, last)
		}
		fmt.Fprintf(w, "  %q: [\n", name)
		for i := range n {
			b, err := json.Marshal(item(i))
			if err != nil {
				return err
			}
			comma := ","
			if i == n-1 {
				comma = ""
			}
			fmt.Fprintf(w, "    %s%s\n", b, comma)
		}
		sep := "],\n"
		if last {
			sep = "]\n"
		}
		_, err := fmt.Fprintf(w, "  %s", sep)
		return err
	}
	notes := d.FromAsOf != "" || d.ToAsOf != ""
	w.WriteString("{\n")
	for _, err := range []error{
		field("from", d.From, false),
		field("to", d.To, false),
		list("spawned", len(d.Spawned), func(i int) any { return d.Spawned[i] }, false),
		list("despawned", len(d.Despawned), func(i int) any { return d.Despawned[i] }, false),
		list("changed", len(d.Changed), func(i int) any { return d.Changed[i] }, false),
		list("archetypes", len(d.Archetypes), func(i int) any { return d.Archetypes[i] }, false),
		list("resources", len(d.Resources), func(i int) any { return d.Resources[i] }, !notes),
	} {
		if err != nil {
			return err
		}
	}
	if d.FromAsOf != "" {
		if err := field("from_as_of", d.FromAsOf, d.ToAsOf == ""); err != nil {
			return err
		}
	}
	if d.ToAsOf != "" {
		if err := field("to_as_of", d.ToAsOf, true); err != nil {
			return err
		}
	}
	w.WriteString("}\n")
	return w.Flush()
}

func printDiff(out io.Writer, d *recording.WorldDiff) {
	for _, line := range client.DiffLines(d, 20) {
		fmt.Fprintln(out, line)
	}
}
