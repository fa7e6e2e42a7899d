package inspector

import (
	"github.com/ecsinspect/ecsinspect/inspector/internal/budget"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/watch"
)

// The agent's own bounds; the bounds on one request are the protocol's
// (protocol.MaxPageRows and the rest, PROTOCOL.md's "Limits"), checked at
// the door by the server half.
const (
	// MaxQueuedBytes is the default of Options.MaxQueuedBytes.
	MaxQueuedBytes = 64 << 20
	// MaxCopyBytes bounds the memory one query copied off the game
	// goroutine may take; a query over it is refused as too large.
	MaxCopyBytes = live.MaxCopyBytes
	// MaxWatchpoints bounds the watchpoints an agent holds.
	MaxWatchpoints = watch.MaxWatchpoints
	// MaxClientWatchpoints bounds the watchpoints one client holds that go
	// when it disconnects.
	MaxClientWatchpoints = watch.MaxClientWatchpoints
	// MaxKeptWatchpoints bounds the watchpoints that stay after their
	// client leaves: the ones that pause the game, and log-only ones set
	// with Keep.
	MaxKeptWatchpoints = watch.MaxKeptWatchpoints
)

// requestBudget is the game-goroutine time one Sync gives clients'
// requests together: requests past it wait for the next frame, taken from
// each client in turn, so no client can hold the game or starve another.
const requestBudget = budget.PerFrame
