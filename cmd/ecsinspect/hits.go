package main

import (
	"fmt"
	"io"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// hitGroupJSON is one line of exec hits --json.
type hitGroupJSON struct {
	Watch     uint32            `json:"watch"`
	Expr      string            `json:"expr"`
	By        string            `json:"by"`
	Component string            `json:"component,omitempty"`
	Hits      uint64            `json:"hits"`
	First     uint64            `json:"first_tick"`
	Last      uint64            `json:"last_tick"`
	Min       *float64          `json:"min,omitempty"`
	Max       *float64          `json:"max,omitempty"`
	Entity    protocol.EntityID `json:"newest_entity,omitempty"`
}

// hitsJSON is exec hits --json: the groups, and the narrower watchpoints
// they point to.
type hitsJSON struct {
	Groups      []hitGroupJSON `json:"groups"`
	Suggestions []suggestJSON  `json:"suggestions"`
}

type suggestJSON struct {
	Watch uint32 `json:"watch"`
	Expr  string `json:"expr"`
	Why   string `json:"why"`
}

// runHits prints each watchpoint's hits grouped by writer, from the
// agent's summary (the agent counts every hit since a watchpoint was set,
// whoever was connected).
func runHits(g client.Game, args []string, out io.Writer) error {
	fs := commandFlags("hits", "", out)
	by := fs.String("by", "writer", "how to group the hits: writer (the system that made the watchpoint true, and the component)")
	asJSON := fs.Bool("json", false, "print JSON: {groups: [{watch, expr, by, component, hits, first_tick, last_tick, min, max, newest_entity}], suggestions: [{watch, expr, why}]}")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *by != "writer" {
		return usageError{fmt.Errorf("hits: --by %q: the agent groups hits by writer only", *by)}
	}
	s, err := summaryAt(g, "hits")
	if err != nil {
		return err
	}
	res := hitsJSON{Groups: []hitGroupJSON{}, Suggestions: []suggestJSON{}}
	for _, w := range s.Watches {
		for _, g := range w.Groups {
			j := hitGroupJSON{Watch: w.ID, Expr: w.Expr, By: g.By, Component: g.Component, Hits: g.Hits, First: g.First, Last: g.Last, Entity: g.Entity}
			if g.Numeric {
				lo, hi := g.Min, g.Max
				j.Min, j.Max = &lo, &hi
			}
			res.Groups = append(res.Groups, j)
		}
		if sg, ok := client.Suggest(w); ok {
			res.Suggestions = append(res.Suggestions, suggestJSON{Watch: w.ID, Expr: sg.Expr, Why: sg.Why})
		}
	}
	if *asJSON {
		return writeJSON(out, res)
	}
	printable.Clean(&res)
	if len(res.Groups) == 0 {
		fmt.Fprintln(out, "no hits")
		return nil
	}
	for _, g := range res.Groups {
		line := fmt.Sprintf("%d\t%s\tby %s", g.Watch, g.Expr, g.By)
		if g.Component != "" {
			line += " on " + g.Component
		}
		line += fmt.Sprintf("\t%d hits\tticks %d-%d", g.Hits, g.First, g.Last)
		if g.Min != nil {
			line += fmt.Sprintf("\t%g .. %g", *g.Min, *g.Max)
		}
		if g.Entity != 0 {
			line += "\tnewest " + g.Entity.String()
		}
		fmt.Fprintln(out, line)
	}
	for _, sg := range res.Suggestions {
		fmt.Fprintf(out, "watch %d points to: %s (%s)\n", sg.Watch, sg.Expr, sg.Why)
	}
	return nil
}

// summaryAt reads one summary from the game, for the command named cmd
// (which an error names).
func summaryAt(g client.Game, cmd string) (*protocol.Summary, error) {
	o, s, err := dialSummary(g, cmd)
	if err != nil {
		return nil, err
	}
	o.Close()
	return s, nil
}

// dialSummary connects to the game and reads its summary; the connection
// stays open for the caller to use and close.
func dialSummary(g client.Game, cmd string) (*client.OneShot, *protocol.Summary, error) {
	o, err := g.Dial()
	if err != nil {
		return nil, nil, err
	}
	s, err := o.Summary()
	if err != nil {
		o.Close()
		return nil, nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return o, s, nil
}
