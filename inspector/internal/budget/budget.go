// Package budget holds the one bound on what clients' work may take of
// the game goroutine in one frame: requests, subscription frames and
// watchpoint checks each draw on it, so a game's frame grows by at most
// this for any client, whatever it asks.
//
//	if spent >= budget.PerFrame { /* the rest waits for the next frame */ }
package budget

import "time"

// PerFrame is the game-goroutine time one Sync gives clients' requests,
// their subscriptions' frames and the watchpoints' checks, each.
const PerFrame = 2 * time.Millisecond
