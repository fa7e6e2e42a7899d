package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// runDiff prints what changed in a recording between two ticks.
func runDiff(args []string, from string, asJSON bool, out io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("want a recording and two ticks: ecsinspect dump FILE.ecsrec --diff T1 T2")
	}
	t1, err1 := strconv.ParseUint(from, 10, 64)
	t2, err2 := strconv.ParseUint(args[1], 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("--diff wants two ticks, like --diff 100 200; got %q and %q", from, args[1])
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
	for _, line := range diffLines(d, 20) {
		fmt.Fprintln(out, line)
	}
}

// diffLines renders a diff as text, at most perList items per list.
func diffLines(d *protocol.WorldDiff, perList int) []string {
	lines := []string{fmt.Sprintf("tick %d → tick %d: %d spawned, %d despawned, %d changed", d.From, d.To, len(d.Spawned), len(d.Despawned), len(d.Changed))}
	ents := func(label string, es []protocol.EntityID) {
		if len(es) == 0 {
			return
		}
		var b strings.Builder
		for i, e := range es {
			if i == perList {
				fmt.Fprintf(&b, " … %d more", len(es)-i)
				break
			}
			b.WriteString(" " + e.String())
		}
		lines = append(lines, fmt.Sprintf("%s (%d):%s", label, len(es), b.String()))
	}
	ents("spawned", d.Spawned)
	ents("despawned", d.Despawned)
	for _, a := range d.Archetypes {
		lines = append(lines, fmt.Sprintf("archetype %d [%s]: %d → %d", a.ID, strings.Join(a.Components, " "), a.From, a.To))
	}
	for _, r := range d.Resources {
		lines = append(lines, "resource "+changeText(r))
	}
	if len(d.Changed) > 0 {
		lines = append(lines, fmt.Sprintf("changed (%d):", len(d.Changed)))
	}
	for i, e := range d.Changed {
		if i == perList {
			lines = append(lines, fmt.Sprintf("  … %d more", len(d.Changed)-i))
			break
		}
		for _, c := range e.Components {
			lines = append(lines, "  "+e.Entity.String()+" "+changeText(c))
		}
	}
	return lines
}

func changeText(c protocol.ComponentChange) string {
	switch {
	case c.Added:
		return c.Name + " added"
	case c.Removed:
		return c.Name + " removed"
	}
	parts := make([]string, 0, len(c.Fields))
	for _, f := range c.Fields {
		name := c.Name
		if f.Path != "" {
			name += "." + f.Path
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s", name, f.Old, f.New))
	}
	return strings.Join(parts, ", ")
}
