package recording

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// Questions a whole recording answers in one pass: when a query holds
// (ScanQuery), and one entity's history (History). Each applies every
// frame in order once, where a bisection by hand seeks again and again
// and can miss a query that holds, stops and holds again.

// QueryTicks is when a query holds across a recording.
type QueryTicks struct {
	Expr   string `json:"query"`
	Held   bool   `json:"held"`            // in some frame read
	First  uint64 `json:"first,omitempty"` // the tick of the first frame it holds in
	Last   uint64 `json:"last,omitempty"`  // and of the last
	Frames int    `json:"frames"`          // frames it holds in
	// Unrecorded is the ticks just before First that the recording does
	// not hold (frames it could not keep): the query may hold first there.
	Unrecorded uint64 `json:"unrecorded_before_first,omitempty"`
	// FirstMatches are the entities it holds for at First (at most 10),
	// Most the most it held for in one frame, at tick MostAt.
	FirstMatches []protocol.EntityID `json:"first_matches,omitempty"`
	// FirstDead are those it holds for at First by their last state:
	// despawned since the frame before, carried by the file (at most 10).
	FirstDead []protocol.EntityID `json:"first_dead,omitempty"`
	Most      int                 `json:"most"`
	MostAt    uint64              `json:"most_at,omitempty"`
	Read      int                 `json:"frames_read"`
}

// scan applies every frame from the first in order, calling each with the
// state after it, and Progress (if set) as it goes.
func (r *Replay) scan(each func(i int, st *WorldState) error) error {
	left := max(int64(scanFloor), scanFactor*r.rec.size)
	r.scanLeft = &left
	defer func() { r.scanLeft = nil }()
	n := len(r.rec.Frames)
	for i := range n {
		if r.Progress != nil && i%progressEvery == 0 && !r.Progress(i, n) {
			return ErrStopped
		}
		st, err := r.At(i)
		if err != nil {
			return err
		}
		if err := each(i, st); err != nil {
			return err
		}
	}
	return nil
}

// ScanQuery tests expr on every frame of the recording: the first and
// last ticks it holds at, in how many frames, and when most often. It
// holds at a frame for the entities alive there and for the last state of
// those despawned since the frame before (a value made and taken away
// within one frame shows only there).
func (r *Replay) ScanQuery(expr string) (QueryTicks, error) {
	qt := QueryTicks{Expr: expr}
	var prev uint64
	err := r.scan(func(i int, st *WorldState) error {
		page, err := st.Query(expr, 0, 0, 10)
		if err != nil {
			return err
		}
		since := prev
		if i == 0 {
			since = st.Tick - min(st.Tick, 1)
		}
		prev = st.Tick
		dead, deadTotal, err := st.DeadMatching(expr, since, 10)
		if err != nil {
			return err
		}
		qt.Read++
		total := page.Total + deadTotal
		if total == 0 {
			return nil
		}
		if !qt.Held {
			qt.Held, qt.First, qt.Unrecorded = true, st.Tick, r.rec.SkippedBefore(i)
			for _, row := range page.Rows {
				qt.FirstMatches = append(qt.FirstMatches, row.Entity)
			}
			qt.FirstDead = dead
		}
		qt.Last = st.Tick
		qt.Frames++
		if total > qt.Most {
			qt.Most, qt.MostAt = total, st.Tick
		}
		return nil
	})
	return qt, err
}

// FirstCaveat says what the first tick may hide: "" when the recording
// holds the ticks before it, else which ticks it lacks, where the query
// may hold first.
func (qt QueryTicks) FirstCaveat() string {
	switch n := qt.Unrecorded; {
	case n == 0 || !qt.Held:
		return ""
	case n == 1:
		return fmt.Sprintf("tick %d before it was not recorded: it may hold first there", qt.First-1)
	default:
		return fmt.Sprintf("ticks %d-%d before it were not recorded: it may hold first there", qt.First-n, qt.First-1)
	}
}

// EntityChange is one change of an entity between two frames of a
// recording.
type EntityChange struct {
	Tick uint64 `json:"tick"`
	// What is "alive" (first seen alive), "spawned", "added", "removed",
	// "changed", "despawned" or "gone" (not alive, no death recorded).
	What      string        `json:"what"`
	Component string        `json:"component,omitempty"`
	Fields    []FieldChange `json:"fields,omitempty"`
	// By is who made a structural change (the frame's journal) or the
	// despawn (the last state the frame carried); "" when not recorded:
	// files carry no writer of values.
	By string `json:"by,omitempty"`
}

// History is every change of e's components across the recording, frame
// by frame: when it was first seen, each component added, removed or
// changed (field by field, old and new), and its despawn, with its last
// state when the file kept it.
func (r *Replay) History(e protocol.EntityID) ([]EntityChange, error) {
	var out []EntityChange
	var prev map[string]protocol.Value
	var order []string
	alive := false
	err := r.scan(func(i int, st *WorldState) error {
		if !st.Alive(e) {
			if alive {
				ch := EntityChange{Tick: st.Tick, What: "gone"}
				if g, ok := st.DeadEntity(e); ok {
					ch.What, ch.Tick, ch.By = "despawned", g.Died.Tick, g.Died.By
					out = append(out, lastChanges(st, g, prev)...) // what the frame it died in wrote, before the despawn took it
				} else if by := journalBy(st, e, "despawn", ""); by != "" {
					ch.What, ch.By = "despawned", by
				}
				out = append(out, ch)
			}
			alive, prev, order = false, nil, nil
			return nil
		}
		d := st.Detail(e)
		now := make(map[string]protocol.Value, len(d.Components))
		var names []string
		for _, c := range d.Components {
			v := c.Value
			if sc := st.schema(c.Component); sc != nil {
				v = protocol.HandlesAsText(v, sc.Fields)
			}
			now[c.Component] = v
			names = append(names, c.Component)
		}
		if !alive {
			what := "alive"
			by := journalBy(st, e, "spawn", "")
			if by != "" || i > 0 && journalHas(st, e, "spawn") {
				what = "spawned"
			}
			out = append(out, EntityChange{Tick: st.Tick, What: what, By: by})
			for _, n := range names {
				out = append(out, EntityChange{Tick: st.Tick, What: "has", Component: n, Fields: []FieldChange{{New: now[n]}}})
			}
		} else {
			for _, n := range names {
				old, had := prev[n]
				switch {
				case !had:
					out = append(out, EntityChange{Tick: st.Tick, What: "added", Component: n, By: journalBy(st, e, "add", n), Fields: []FieldChange{{New: now[n]}}})
				case !old.Equal(now[n]):
					out = append(out, EntityChange{Tick: st.Tick, What: "changed", Component: n, Fields: fieldChanges("", old, now[n], nil)})
				}
			}
			for _, n := range order {
				if _, has := now[n]; !has {
					out = append(out, EntityChange{Tick: st.Tick, What: "removed", Component: n, By: journalBy(st, e, "remove", n), Fields: []FieldChange{{Old: prev[n]}}})
				}
			}
		}
		alive, prev, order = true, now, names
		return nil
	})
	return out, err
}

// lastChanges is how a dead entity's last state differs from prev, its
// values at the frame before.
func lastChanges(st *WorldState, g *protocol.DeadEntity, prev map[string]protocol.Value) []EntityChange {
	var out []EntityChange
	for _, c := range g.Components {
		v := c.Value
		if sc := st.schema(c.Component); sc != nil {
			v = protocol.HandlesAsText(v, sc.Fields)
		}
		old, had := prev[c.Component]
		switch {
		case !had:
			out = append(out, EntityChange{Tick: g.Died.Tick, What: "added", Component: c.Component, Fields: []FieldChange{{New: v}}})
		case !old.Equal(v):
			out = append(out, EntityChange{Tick: g.Died.Tick, What: "changed", Component: c.Component, Fields: fieldChanges("", old, v, nil)})
		}
	}
	return out
}

// schema is the component named short's schema, if the state has it.
func (s *WorldState) schema(short string) *protocol.Component {
	_, c := s.componentNamed(short)
	return c
}

// componentNamed is the id and schema of the component named name (short
// or full); -1 and nil if the state has none.
func (s *WorldState) componentNamed(name string) (int, *protocol.Component) {
	for id, c := range s.v().schemas {
		if c != nil && (c.Short == name || c.Name == name) {
			return int(id), c
		}
	}
	return -1, nil
}

// ComponentID is the id of the component named name (short or full), if
// the state has it.
func (s *WorldState) ComponentID(name string) (int, bool) {
	id, _ := s.componentNamed(name)
	return id, id >= 0
}

// journalBy is who the frame's journal says made op on e (with the
// component named comp, when given), or "".
func journalBy(st *WorldState, e protocol.EntityID, op, comp string) string {
	id := -1
	if comp != "" {
		if id, _ = st.componentNamed(comp); id < 0 {
			return ""
		}
	}
	for _, j := range st.Journal {
		if j.Entity == e && j.Op == op && (id < 0 || j.Component == id) {
			return j.System
		}
	}
	return ""
}

// journalHas reports whether the frame's journal holds op on e.
func journalHas(st *WorldState, e protocol.EntityID, op string) bool {
	for _, j := range st.Journal {
		if j.Entity == e && j.Op == op {
			return true
		}
	}
	return false
}

// String says the change in one line: "tick 812 Energy changed: Value
// 12.5 -> -40".
func (c EntityChange) String() string {
	s := fmt.Sprintf("tick %d %s", c.Tick, c.What)
	if c.Component != "" {
		s = fmt.Sprintf("tick %d %s %s", c.Tick, c.Component, c.What)
	}
	for i, f := range c.Fields {
		switch {
		case c.What == "has" || c.What == "added":
			s += " " + f.New.String()
		case c.What == "removed":
			s += " (was " + f.Old.String() + ")"
		default:
			path := f.Path
			if path == "" {
				path = "value"
			}
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			s += fmt.Sprintf("%s%s %s -> %s", sep, path, f.Old, f.New)
		}
	}
	if c.By != "" {
		s += " by " + c.By
	}
	return s
}
