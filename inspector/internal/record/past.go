package record

import (
	"fmt"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// A watchpoint set late still answers for the past the agent keeps: the
// in-memory ring's frames are replayed in order and the watchpoint's query
// tested at each recorded tick, and the first where it held is told with
// the watchpoint's reply.

// PastFirst is what a search of the recorded past found.
type PastFirst struct {
	Held   bool
	Tick   uint64            // the first recorded tick it held at
	Before uint64            // the recorded tick before that (0: none): it may have held first in between
	Entity protocol.EntityID // an entity it held for there
	Values string            // the entity's tested components there, in words
	// From and To are the ticks searched, Frames the frames read; Cut is
	// why the search stopped early ("" when it read them all).
	From, To uint64
	Frames   int
	Cut      string
}

// FirstHeld tests expr (for entity only, when not 0) at every tick frames
// hold, oldest first, until it holds or the deadline passes.
func FirstHeld(frames []Frame, expr string, entity protocol.EntityID, deadline time.Time) (PastFirst, error) {
	var pf PastFirst
	if len(frames) == 0 {
		return pf, nil
	}
	pf.From = frames[0].Tick()
	st := recording.NewWorldState()
	limit := 1
	if entity != 0 {
		limit = protocol.MaxPageRows
	}
	var prev uint64
	for i, fr := range frames {
		if i > 0 && time.Now().After(deadline) {
			pf.Cut = fmt.Sprintf("the search stopped at its time limit, at tick %d", prev)
			return pf, nil
		}
		if err := st.Apply(fr.f); err != nil {
			return pf, err
		}
		pf.Frames, pf.To = i+1, st.Tick
		page, err := st.Query(expr, 0, 0, limit)
		if err != nil {
			return pf, err
		}
		for _, row := range page.Rows {
			if entity != 0 && row.Entity != entity {
				continue
			}
			pf.Held, pf.Tick, pf.Before, pf.Entity = true, st.Tick, prev, row.Entity
			pf.Values = TestedValues(st.Detail(row.Entity).Components, expr)
			return pf, nil
		}
		prev = st.Tick
	}
	return pf, nil
}

// TestedValues says the values of the components expr tests, as cvs
// hold them: "Energy = {Value:-40}, Age = ...".
func TestedValues(cvs []protocol.ComponentValue, expr string) string {
	var parts []string
	for _, cv := range cvs {
		if strings.Contains(expr, cv.Component+".") {
			parts = append(parts, cv.Component+" = "+cv.Value.String())
		}
	}
	return strings.Join(parts, ", ")
}

// String says what the search found, for the watchpoint's reply: "" when
// it read every frame and the query held in none (nothing to say).
func (pf PastFirst) String() string {
	kept := fmt.Sprintf("ticks %d-%d the agent keeps (%d frames)", pf.From, pf.To, pf.Frames)
	switch {
	case pf.Held:
		s := fmt.Sprintf("in the %s it first held at tick %d, for %v", kept, pf.Tick, pf.Entity)
		if pf.Values != "" {
			s += " (" + pf.Values + ")"
		}
		if pf.Before != 0 && pf.Tick-pf.Before > 1 {
			s += fmt.Sprintf("; ticks %d-%d were not recorded: it may have held first there", pf.Before+1, pf.Tick-1)
		}
		return s
	case pf.Cut != "":
		return fmt.Sprintf("it did not hold in the %s read; %s", kept, pf.Cut)
	}
	return ""
}
