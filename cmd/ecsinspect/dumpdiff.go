package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// diffMemory is the heap a diff keeps near, unless GOMEMLIMIT says
// otherwise: at a million entities the two states take about 410 MiB.
const diffMemory = 480 << 20

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
	if os.Getenv("GOMEMLIMIT") == "" {
		// Two states of a big world are most of what a diff holds, and
		// the collector would let the heap grow to twice them: a million
		// entities' diff stays near diffMemory instead (a little slower).
		debug.SetMemoryLimit(diffMemory)
	}
	d, a, b, err := diffFile(args[0], t1, t2)
	if err != nil {
		return err
	}
	if asJSON {
		return writeDiffJSON(out, d, func(each func(recording.EntityDiff) error) error { return d.EachChanged(a, b, each) })
	}
	// Text shows the first few changed entities: the rest are counted.
	if err := d.EachChanged(a, b, func(ed recording.EntityDiff) error {
		if len(d.Changed) < diffTextEntities {
			d.Changed = append(d.Changed, ed)
		} else {
			d.Unlisted++
		}
		return nil
	}); err != nil {
		return err
	}
	printable.Clean(d)
	printDiff(out, d)
	return nil
}

// writeDiffJSON writes the diff as one JSON object with an entity's
// changes to a line: a diff of a busy world is hundreds of megabytes,
// which a whole diff held, or an indenting encoder, would hold again; this
// streams the changed entities as changed hands them out, and no line is
// huge.
func writeDiffJSON(out io.Writer, d *recording.WorldDiff, changed func(each func(recording.EntityDiff) error) error) error {
	w := bufio.NewWriterSize(out, 1<<16)
	field := func(name string, v any, last bool) error {
		b, err := marshalJSON(v, false)
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
			b, err := marshalJSON(item(i), false)
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
	stream := func(name string, items func(each func(recording.EntityDiff) error) error) error {
		fmt.Fprintf(w, "  %q: [", name)
		sep := "\n    "
		err := items(func(ed recording.EntityDiff) error {
			b, err := marshalJSON(ed, false)
			if err != nil {
				return err
			}
			w.WriteString(sep)
			_, err = w.Write(b)
			sep = ",\n    "
			return err
		})
		if err != nil {
			return err
		}
		if sep == "\n    " { // none
			_, err = w.WriteString("],\n")
		} else {
			_, err = w.WriteString("\n  ],\n")
		}
		return err
	}
	notes := d.FromAsOf != "" || d.ToAsOf != ""
	w.WriteString("{\n")
	for _, err := range []error{
		field("from", d.From, false),
		field("to", d.To, false),
		list("spawned", len(d.Spawned), func(i int) any { return d.Spawned[i] }, false),
		list("despawned", len(d.Despawned), func(i int) any { return d.Despawned[i] }, false),
		stream("changed", changed),
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

// diffTextEntities is how many entities of each list the text shows.
const diffTextEntities = 20

func printDiff(out io.Writer, d *recording.WorldDiff) {
	for _, line := range client.DiffLines(d, diffTextEntities) {
		fmt.Fprintln(out, line)
	}
}
