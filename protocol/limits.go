package protocol

import (
	"math"
	"unicode/utf8"
)

// The bounds on what one request may ask. An agent checks them as a
// request arrives, before it reaches the game, and refuses a request past
// one with the code PROTOCOL.md gives ("Limits"); a client that keeps
// within them is never refused for size.
const (
	// MaxQueryBytes bounds a query expression, a watchpoint and a series.
	MaxQueryBytes = 2048
	// MaxQueryTerms bounds a query's terms (components, field tests).
	MaxQueryTerms = 32
	// DefaultPageLimit is the rows of a page that asks for none.
	DefaultPageLimit = 100
	// MaxPageRows bounds the rows of one page; a larger limit is refused.
	MaxPageRows = 10000
	// MaxOffset bounds a page's first row.
	MaxOffset = math.MaxInt32
	// MaxEventSample bounds the recent events sent per queue.
	MaxEventSample = 64
	// MaxSubscriptions bounds one client's subscriptions.
	MaxSubscriptions = 64
	// MaxDetailChildren bounds the children a Detail lists: a window from
	// the request's offset (a root of 12,000 children is not sent whole
	// every frame to every client that follows it).
	MaxDetailChildren = 1000
	// MaxSpawnComponents bounds the components of one Spawn.
	MaxSpawnComponents = 64
	// MaxTextBytes bounds a field path, a component name or a journal filter.
	MaxTextBytes = 256
	// MaxClientName bounds the name a client gives in its Hello, as the
	// agent keeps it (ClientName): a longer one is cut, not refused.
	MaxClientName = 64
	// MaxStep bounds the frames of one Step.
	MaxStep = 1 << 20
	// MaxInFlight bounds a client's requests read but not yet answered:
	// past it the agent stops reading that client until replies are
	// taken, so a client that sends without reading holds back its own
	// requests, not the game.
	MaxInFlight = 32
)

// ClientName is a Hello's client name as an agent keeps it: at most
// MaxClientName bytes, cut at a character's start, an ellipsis marking a
// cut.
func ClientName(name string) string {
	if len(name) <= MaxClientName {
		return name
	}
	const mark = "…"
	cut := MaxClientName - len(mark)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + mark
}

// PageLimit is the rows a page request's limit l asks for: l, or
// DefaultPageLimit when l is 0.
func PageLimit(l int) int {
	if l <= 0 {
		return DefaultPageLimit
	}
	return l
}

// ChangesWorld reports whether m changes the world or its flow: the
// requests a read-only session may not send (a log-only watchpoint
// changes nothing).
func ChangesWorld(m Message) bool {
	switch m := m.(type) {
	case *SetField, *AddComponent, *RemoveComponent, *Spawn, *Despawn, *Pause, *Resume, *Step, *SetParent, *Rewind:
		return true
	case *Watch:
		return !m.Log
	}
	return false
}
