package inspector

import (
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
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
)

// requestBudget is the game-goroutine time one Sync gives clients'
// requests together: requests past it wait for the next frame, taken from
// each client in turn, so no client can hold the game or starve another.
const requestBudget = 2 * time.Millisecond
