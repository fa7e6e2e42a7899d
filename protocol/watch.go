package protocol

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Watchpoints: conditions the agent checks at the end of every frame, that
// pause the game (or only log) when they come true, and tell every client.

// Message types of watchpoints.
const (
	TypeWatch       Type = 16 // client: set a watchpoint
	TypeUnwatch     Type = 17 // client: remove one
	TypeEnableWatch Type = 18 // client: turn one off or on
	TypeWatchHit    Type = 74 // agent: a watchpoint fired
)

// Watch sets a watchpoint; the Reply's w is its id.
type Watch struct {
	ID   uint32 `msgpack:"id"`
	Expr string `msgpack:"x"` // see ParseWatch
	// Log makes the watchpoint only tell the clients, not pause the game;
	// a read-only agent takes only these.
	Log bool `msgpack:"log,omitempty"`
	// Keep makes a log-only watchpoint stay after the client that set it
	// disconnects (one that pauses the game always stays).
	Keep bool `msgpack:"keep,omitempty"`
	// Hold makes the pause a hit makes held, as Pause.Hold does: it
	// outlives the clients until a resume or the game's hold timeout (a
	// watchpoint set by exec, or on a fleet, fires with nobody connected).
	Hold bool `msgpack:"hold,omitempty"`
}

// Unwatch removes watchpoint W.
type Unwatch struct {
	ID    uint32 `msgpack:"id"`
	Watch uint32 `msgpack:"w"`
}

// EnableWatch turns watchpoint W off (On false) or on again.
type EnableWatch struct {
	ID    uint32 `msgpack:"id"`
	Watch uint32 `msgpack:"w"`
	On    bool   `msgpack:"on"`
}

// Watchpoint is a watchpoint as the summary lists it.
type Watchpoint struct {
	ID   uint32 `msgpack:"id"`
	Expr string `msgpack:"x"`
	Kind string `msgpack:"k"` // value, spawn, despawn, add, remove, system, frame
	Log  bool   `msgpack:"log,omitempty"`
	On   bool   `msgpack:"on"`
	Hits uint64 `msgpack:"n"`
	// Owner is the client that set it (its number in the journal's
	// "client N"); Keep, whether it stays after that client leaves.
	Owner int  `msgpack:"own,omitempty"`
	Keep  bool `msgpack:"keep,omitempty"`
	// Suspended says why the agent stopped checking it ("" while it is
	// checked): its checks did not fit the frame's budget. EnableWatch
	// with on true tries again.
	Suspended string `msgpack:"sus,omitempty"`
	// Groups are its hits since it was set, by who made it true and on
	// which component (at most MaxHitGroups; later writers count in the
	// last, "others"): the evidence of who writes the values it catches.
	Groups []HitGroup `msgpack:"hg,omitempty"`
}

// MaxHitGroups bounds a watchpoint's hit groups.
const MaxHitGroups = 8

// HitGroup counts a watchpoint's hits by one writer on one component.
type HitGroup struct {
	By        string `msgpack:"by"`
	Component string `msgpack:"c,omitempty"`
	Hits      uint64 `msgpack:"n"`
	First     uint64 `msgpack:"t0"` // the tick of the first hit
	Last      uint64 `msgpack:"t1"` // and of the newest
	// Min and Max bound the tested field's values at the hits, when
	// Numeric: the field of the watchpoint's first field test.
	Min     float64  `msgpack:"lo"`
	Max     float64  `msgpack:"hi"`
	Numeric bool     `msgpack:"num,omitempty"`
	Entity  EntityID `msgpack:"e,omitempty"` // the newest hit's entity
}

// Count adds a hit to the group list gs (by its writer and component),
// with the tested field's value v if numeric; past MaxHitGroups new
// writers count in the last group, named "others".
func Count(gs []HitGroup, h *WatchHit, v float64, numeric bool) []HitGroup {
	i := slices.IndexFunc(gs, func(g HitGroup) bool { return g.By == h.By && g.Component == h.Component })
	if i < 0 && len(gs) == MaxHitGroups {
		i = len(gs) - 1
		gs[i].By, gs[i].Component = "others", ""
	}
	if i < 0 {
		gs = append(gs, HitGroup{By: h.By, Component: h.Component, First: h.Tick, Min: v, Max: v, Numeric: numeric})
		i = len(gs) - 1
	}
	g := &gs[i]
	g.Hits++
	g.Last, g.Entity = h.Tick, h.Entity
	switch {
	case !numeric:
	case !g.Numeric || g.Hits == 1:
		g.Min, g.Max, g.Numeric = v, v, true
	default:
		g.Min, g.Max = min(g.Min, v), max(g.Max, v)
	}
	return gs
}

// WatchHit tells every client that a watchpoint fired.
type WatchHit struct {
	Watch  uint32   `msgpack:"w"`
	Expr   string   `msgpack:"x"`
	Tick   uint64   `msgpack:"t"`            // the frame that made it true
	Entity EntityID `msgpack:"e,omitempty"`  // the entity, for value and structural watchpoints
	By     string   `msgpack:"by,omitempty"` // who did it: the system that wrote the value, made the change, or ran long
	// Component is the component whose value or presence made it true.
	Component string `msgpack:"c,omitempty"`
	Old       *Value `msgpack:"old,omitempty"` // the value before, where known
	Value     *Value `msgpack:"v,omitempty"`   // the value now
	Matches   int    `msgpack:"nm,omitempty"`  // entities it holds for, among those written this frame
	Paused    bool   `msgpack:"pz,omitempty"`  // the game is paused on it
	Text      string `msgpack:"m"`             // the hit in words
}

func (*Watch) Type() Type       { return TypeWatch }
func (*Unwatch) Type() Type     { return TypeUnwatch }
func (*EnableWatch) Type() Type { return TypeEnableWatch }
func (*WatchHit) Type() Type    { return TypeWatchHit }

func (m *Watch) RequestID() uint32       { return m.ID }
func (m *Unwatch) RequestID() uint32     { return m.ID }
func (m *EnableWatch) RequestID() uint32 { return m.ID }

// WatchSpec is a parsed watchpoint expression.
type WatchSpec struct {
	Kind string // value, spawn, despawn, add, remove, system, frame, stale
	// Query is a value watchpoint's query (the query language), or the
	// filter a spawn must match ("" for any).
	Query string
	// Entity limits the watchpoint to one entity (0: any).
	Entity EntityID
	// Component is what an add or remove watchpoint watches.
	Component string
	// System and Over are a timing watchpoint's system ("" for the frame)
	// and bound.
	System string
	Over   time.Duration
}

// ParseWatch reads a watchpoint expression:
//
//	Energy.Value<0                   a value: the query language, with at least one field test
//	42v3 Energy.Value<0              the same, for one entity
//	spawn [QUERY]                    an entity spawned (with the query's components)
//	despawn [E]                      an entity (E) despawned
//	add COMP [to E]                  a component added (to E)
//	remove COMP [from E]             a component removed (from E)
//	system NAME > 2ms                a system's run took longer
//	frame > 20ms                     a frame took longer
//	stale                            a handle that names no live entity is used
//
// A value watchpoint fires for an entity when a write makes its query
// hold: only entities whose tested components were written during the
// frame are checked, so a set watchpoint costs in proportion to what the
// game writes. Each entity fires it once.
func ParseWatch(expr string) (WatchSpec, error) {
	words := strings.Fields(expr)
	if len(words) == 0 {
		return WatchSpec{}, fmt.Errorf("an empty watchpoint: try Energy.Value<0, despawn 42v3, add Fleeing, system hunt > 2ms or frame > 20ms")
	}
	entity := func(s, what string) (EntityID, error) {
		e, err := ParseEntityID(s)
		if err != nil || e == 0 {
			return 0, fmt.Errorf("%s: %q is not an entity like 42v3", what, s)
		}
		return e, nil
	}
	switch words[0] {
	case "stale":
		if len(words) > 1 {
			return WatchSpec{}, fmt.Errorf("stale takes nothing: it fires on the first use of a dead handle")
		}
		return WatchSpec{Kind: "stale"}, nil
	case "spawn":
		return WatchSpec{Kind: "spawn", Query: strings.Join(words[1:], " ")}, nil
	case "despawn":
		switch len(words) {
		case 1:
			return WatchSpec{Kind: "despawn"}, nil
		case 2:
			e, err := entity(words[1], "despawn")
			return WatchSpec{Kind: "despawn", Entity: e}, err
		}
		return WatchSpec{}, fmt.Errorf("despawn takes at most one entity: despawn 42v3")
	case "add", "remove":
		prep := map[string]string{"add": "to", "remove": "from"}[words[0]]
		switch {
		case len(words) == 2:
			return WatchSpec{Kind: words[0], Component: words[1]}, nil
		case len(words) == 4 && words[2] == prep:
			e, err := entity(words[3], words[0])
			return WatchSpec{Kind: words[0], Component: words[1], Entity: e}, err
		}
		return WatchSpec{}, fmt.Errorf("%s takes a component and, if you like, an entity: %s Fleeing %s 42v3", words[0], words[0], prep)
	case "system", "frame":
		rest := words[1:]
		spec := WatchSpec{Kind: words[0]}
		if words[0] == "system" {
			// The name is everything before the ">": names may hold spaces.
			name, bound, found := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(expr), "system")), ">")
			name = strings.Join(strings.Fields(name), " ")
			if name == "" {
				return WatchSpec{}, fmt.Errorf("system takes a name and a bound: system hunt > 2ms")
			}
			spec.System, rest = name, nil
			if found {
				rest = []string{">" + strings.TrimSpace(bound)}
			}
		}
		bound := strings.TrimPrefix(strings.Join(rest, ""), ">")
		if len(rest) == 0 || !strings.HasPrefix(strings.Join(rest, ""), ">") {
			return WatchSpec{}, fmt.Errorf("%s watchpoints compare with >: %s > 2ms", words[0], strings.TrimSpace(words[0]+" "+spec.System))
		}
		d, err := time.ParseDuration(bound)
		if err != nil || d <= 0 {
			return WatchSpec{}, fmt.Errorf("%q is not a duration like 2ms or 500us", bound)
		}
		spec.Over = d
		return spec, nil
	}
	spec := WatchSpec{Kind: "value", Query: expr}
	if e, err := ParseEntityID(words[0]); err == nil && e != 0 {
		spec.Entity, spec.Query = e, strings.Join(words[1:], " ")
	}
	q, err := ParseQuery(spec.Query)
	if err != nil {
		return WatchSpec{}, err
	}
	if !hasFieldTest(q) {
		return WatchSpec{}, fmt.Errorf("a value watchpoint needs a field test, like Energy.Value<0 (for spawns and adds: spawn %s, add COMP)", spec.Query)
	}
	return spec, nil
}

// FormatDuration prints a timing bound as ParseWatch reads it.
func FormatDuration(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e6, 'g', 4, 64) + "ms"
}

// hasFieldTest reports whether a query tests a field's value.
func hasFieldTest(q *Expr) bool {
	for _, t := range q.Terms {
		if t.Kind == TermField {
			return true
		}
	}
	return false
}
