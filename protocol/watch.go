package protocol

import (
	"slices"
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
	// Replayed: the frame is one the game ran before a rewind and runs
	// again; the hit is not counted again (the watchpoint's hits and
	// groups count each frame once), though it pauses as any hit does.
	Replayed bool   `msgpack:"rp,omitempty"`
	Text     string `msgpack:"m"` // the hit in words
}

func (*Watch) Type() Type       { return TypeWatch }
func (*Unwatch) Type() Type     { return TypeUnwatch }
func (*EnableWatch) Type() Type { return TypeEnableWatch }
func (*WatchHit) Type() Type    { return TypeWatchHit }

func (m *Watch) RequestID() uint32       { return m.ID }
func (m *Unwatch) RequestID() uint32     { return m.ID }
func (m *EnableWatch) RequestID() uint32 { return m.ID }
