package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// dump FILE --first QUERY and --history 42v1: questions a recording
// answers in one pass over its frames (recording.Replay.ScanQuery and
// History).

// scanResult is what --first and --history print.
type scanResult struct {
	Source    string                   `json:"source"`
	Frames    int                      `json:"frames"`
	FirstTick uint64                   `json:"first_tick"`
	LastTick  uint64                   `json:"last_tick"`
	Gaps      int                      `json:"gaps,omitempty"`
	First     *recording.QueryTicks    `json:"first,omitempty"`
	Entity    string                   `json:"entity,omitempty"`
	History   []recording.EntityChange `json:"history,omitempty"`
}

// runScan answers --first (a query) or --history (an entity) over the
// recording at path.
func runScan(path, first, history string, asJSON bool, out io.Writer) error {
	if !strings.HasSuffix(path, ".ecsrec") {
		if _, err := recording.OpenFrames(path); err != nil {
			return fmt.Errorf("--first and --history read a recording (.ecsrec): record the game first (ecsinspect record ADDR FILE): %w", err)
		}
	}
	rec, err := recording.OpenFrames(path)
	if err != nil {
		return err
	}
	defer rec.Close()
	res := &scanResult{Source: path, Frames: len(rec.Frames), FirstTick: rec.Frames[0].Tick, LastTick: rec.Frames[len(rec.Frames)-1].Tick}
	res.Gaps, _ = rec.Gaps()
	replay := recording.NewReplay(rec)
	if first != "" {
		qt, err := replay.ScanQuery(first)
		if err != nil {
			return err
		}
		res.First = &qt
	}
	if history != "" {
		e, err := protocol.ParseEntityID(history)
		if err != nil {
			return err
		}
		res.Entity = e.String()
		if res.History, err = recording.NewReplay(rec).History(e); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(out, res)
	}
	printable.Clean(res)
	printScan(out, res)
	return nil
}

// printScan prints a scan's answer for a person.
func printScan(out io.Writer, r *scanResult) {
	over := fmt.Sprintf("%d frames, ticks %d-%d", r.Frames, r.FirstTick, r.LastTick)
	if r.Gaps > 0 {
		over += fmt.Sprintf(", %d gaps: a query may hold in ticks not recorded", r.Gaps)
	}
	if q := r.First; q != nil {
		fmt.Fprintf(out, "%s over %s:\n", q.Expr, over)
		if !q.Held {
			fmt.Fprintf(out, "  never holds\n")
		} else {
			var who []string
			for _, e := range q.FirstMatches {
				who = append(who, e.String())
			}
			for _, e := range q.FirstDead {
				who = append(who, e.String()+"'s last state, despawned in that frame")
			}
			fmt.Fprintf(out, "  first holds at tick %d (%s)\n", q.First, strings.Join(who, ", "))
			if c := q.FirstCaveat(); c != "" {
				fmt.Fprintf(out, "  but %s\n", c)
			}
			fmt.Fprintf(out, "  last holds at tick %d\n", q.Last)
			fmt.Fprintf(out, "  holds in %d of %d frames, for at most %d entities (tick %d)\n", q.Frames, q.Read, q.Most, q.MostAt)
			if len(q.FirstMatches) > 0 {
				fmt.Fprintf(out, "  look: ecsinspect dump %s --tick %d --query '%s'\n", r.Source, q.First, q.Expr)
			}
			if len(q.FirstDead) > 0 {
				fmt.Fprintf(out, "  look: ecsinspect dump %s --tick %d --entity %s; its life: --history %s\n", r.Source, q.First, q.FirstDead[0], q.FirstDead[0])
			}
		}
	}
	if r.Entity != "" {
		fmt.Fprintf(out, "history of %s over %s:\n", r.Entity, over)
		if len(r.History) == 0 {
			fmt.Fprintf(out, "  never alive in the recording\n")
		}
		for _, c := range r.History {
			fmt.Fprintf(out, "  %s\n", c)
		}
	}
}
