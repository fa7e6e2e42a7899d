package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/internal/printable"
)

// Fan-out: dump --all and exec --all run on every instance of a fleet
// that passes a filter on its discovery fields, a few at once, and report
// each instance's result or failure by name.

// instanceEntry is one instance in dump --all --json: its discovery fields
// and, with --query, its total and first matches; or why it failed.
type instanceEntry struct {
	Instance string       `json:"instance"`
	Game     string       `json:"game"`
	Host     string       `json:"host"`
	PID      int          `json:"pid"`
	Build    string       `json:"build,omitempty"`
	Started  string       `json:"started"`
	Tick     uint64       `json:"tick"`
	TPS      float64      `json:"tps"`
	FrameP99 float64      `json:"frame_p99_ms"`
	Entities int          `json:"entities"`
	Paused   bool         `json:"paused"`
	Hits     uint64       `json:"hits"`
	Query    string       `json:"query,omitempty"`
	Total    *int         `json:"total,omitempty"`
	Matches  []dumpEntity `json:"matches,omitempty"`
	Entity   *dumpEntity  `json:"entity,omitempty"`
	Error    string       `json:"error,omitempty"`
}

// fleetDump is dump --all --json's one object.
type fleetDump struct {
	Broker    string          `json:"broker"`
	Filter    string          `json:"filter,omitempty"`
	Instances []instanceEntry `json:"instances"`
}

// dumpAll runs dump on every instance.
func dumpAll(addr, filter, token, query, entity string, limit int, asJSON bool, out io.Writer) error {
	f, members, err := openFleet(addr, token, filter)
	if err != nil {
		return err
	}
	defer f.Close()
	t := f.Target()
	entries := client.FanOut(members, func(m fleet.Member) instanceEntry {
		e := instanceEntry{Instance: m.Instance, Game: m.Game, Host: m.Host, PID: m.PID, Build: m.Build,
			Started: time.UnixMilli(m.Started).UTC().Format(time.RFC3339), Tick: m.Tick, TPS: m.TPS, FrameP99: m.FrameP99,
			Entities: m.Entities, Paused: m.Paused, Hits: m.Hits, Query: query}
		if query == "" && entity == "" {
			return e // the roster's announcement says it all: no session
		}
		res, err := dumpLive(f.Game(m.Instance), dumpAsk{query: query, entity: entity, limit: limit})
		if err != nil {
			e.Error = err.Error()
			return e
		}
		e.Tick, e.Entities, e.Paused = res.Tick, res.Entities, res.Paused
		if res.Matches != nil {
			total := res.Matches.Total
			e.Total, e.Matches = &total, res.Matches.Entities
		}
		e.Entity = res.Entity
		return e
	})
	failed := 0
	for _, e := range entries {
		if e.Error != "" {
			failed++
		}
	}
	if asJSON {
		if err := writeJSON(out, fleetDump{Broker: t.String(), Filter: filter, Instances: entries}); err != nil {
			return err
		}
	} else {
		printable.Clean(entries)
		printFleetDump(out, t, entries, query)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d instances failed (named above)", failed, len(entries))
	}
	return nil
}

// openFleet connects to the broker addr names and lists the live
// instances that pass filter.
func openFleet(addr, token, filter string) (*client.Fleet, []fleet.Member, error) {
	f, err := client.OpenFleet(addr, token)
	if err != nil {
		return nil, nil, err
	}
	members, err := f.List(filter)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, members, nil
}

// printFleetDump prints one line an instance, and its first matches.
func printFleetDump(out io.Writer, t fleet.Target, entries []instanceEntry, query string) {
	fmt.Fprintf(out, "%s: %d instances", t, len(entries))
	if query != "" {
		totals := make([]int, 0, len(entries))
		for _, e := range entries {
			if e.Total != nil {
				totals = append(totals, *e.Total)
			}
		}
		fmt.Fprintf(out, ", %d hold a match for %s", client.HoldingMatch(totals), query)
	}
	fmt.Fprintln(out)
	for _, e := range entries {
		fmt.Fprintf(out, "  %-20s %-12s tick %-8d %6.1f/s  p99 %6.2f ms  %8d entities", e.Instance, e.Game, e.Tick, e.TPS, e.FrameP99, e.Entities)
		if e.Paused {
			fmt.Fprint(out, "  PAUSED")
		}
		if e.Hits > 0 {
			fmt.Fprintf(out, "  %d hits", e.Hits)
		}
		if e.Error != "" {
			fmt.Fprintf(out, "  FAILED: %s\n", e.Error)
			continue
		}
		if e.Total != nil {
			fmt.Fprintf(out, "  %d match", *e.Total)
		}
		fmt.Fprintln(out)
		for i, m := range e.Matches {
			if i == 5 {
				fmt.Fprintf(out, "      ... %d more\n", *e.Total-5)
				break
			}
			fmt.Fprintf(out, "      %s %s\n", m.Entity, compactComponents(m.Components))
		}
		if e.Entity != nil {
			fmt.Fprintf(out, "      %s %s\n", e.Entity.Entity, compactComponents(e.Entity.Components))
		}
	}
}

// compactComponents prints components on one line, as JSON.
func compactComponents(c map[string]any) string { return shownJSON(c) }

// execAll runs one command on every instance that passes filter.
func execAll(addr, filter, token string, args []string, out io.Writer) error {
	f, members, err := openFleet(addr, token, filter)
	if err != nil {
		return err
	}
	defer f.Close()
	if args[0] == "wait" {
		return waitAll(f, members, args[1:], out)
	}
	type result struct {
		out string
		err error
	}
	results := client.FanOut(members, func(m fleet.Member) result {
		var b strings.Builder
		err := execOne(f.Game(m.Instance), args, &b)
		return result{b.String(), err}
	})
	failed := 0
	for i, r := range results {
		name := members[i].Instance
		if r.err != nil {
			failed++
			fmt.Fprintf(out, "%s: FAILED: %v\n", name, r.err)
			continue
		}
		lines := strings.Split(strings.TrimRight(r.out, "\n"), "\n")
		if len(lines) == 1 {
			fmt.Fprintf(out, "%s: %s\n", name, lines[0])
			continue
		}
		fmt.Fprintf(out, "== %s\n%s\n", name, strings.Join(lines, "\n"))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d instances failed (named above)", failed, len(results))
	}
	return nil
}

// waitAll waits for the first watchpoint hit on any instance: a session
// with each, through the one bounded fan-out (client.FanOut), all of them
// at once, so a fleet past its width is refused rather than waited on in
// part. The first hit closes the other sessions.
func waitAll(f *client.Fleet, members []fleet.Member, args []string, out io.Writer) error {
	w, err := parseWait(args)
	if err != nil {
		return err
	}
	if len(members) > client.FanOutWidth {
		return fmt.Errorf("wait --all waits on %d instances at most, and %d pass the filter: narrow it with --filter", client.FanOutWidth, len(members))
	}
	type hit struct {
		Instance string `json:"instance"`
		watchHitJSON
	}
	var (
		mu       sync.Mutex
		first    *hit
		sessions = map[string]*client.OneShot{}
	)
	// Each session is noted as it opens; the first hit closes every other,
	// and a session that opens after it closes at once.
	stopped := func() bool { return first != nil }
	errs := client.FanOut(members, func(m fleet.Member) error {
		o, err := f.Game(m.Instance).Dial()
		if err != nil {
			return fmt.Errorf("%s: %w", m.Instance, err)
		}
		mu.Lock()
		if stopped() {
			mu.Unlock()
			o.Close()
			return nil
		}
		sessions[m.Instance] = o
		mu.Unlock()
		defer o.Close()
		h, err := o.WaitHitOf(w.timeout, w.accepts)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case stopped():
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", m.Instance, err)
		}
		first = &hit{m.Instance, hitJSON(h)}
		for name, other := range sessions {
			if name != m.Instance {
				other.Close()
			}
		}
		return nil
	})
	if first != nil {
		return writeJSON(out, first)
	}
	var failures []string
	for _, err := range errs {
		if err != nil {
			failures = append(failures, err.Error())
		}
	}
	return fmt.Errorf("wait: no watchpoint fired on %d instances in %v: %s", len(members), w.timeout, strings.Join(failures, "; "))
}
