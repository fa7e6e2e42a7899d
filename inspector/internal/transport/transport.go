// Package transport is the contract between the agent and a transport linked
// into the game separately: the broker's (package inspector/broker) sets
// Broker from its init, and the agent starts it when Options.Broker is
// set. A game that does not import the transport compiles none of its
// dependencies.
package transport

import (
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/server"
)

// Status is the game as Sync last left it (at most a quarter of a second
// old): what an announcement says of it.
type Status struct {
	Tick     uint64
	Entities int
	Paused   bool // between frames or stopped inside one
	Clients  int
	TPS      float64 // frames a second lately, 0 while paused
	FrameP99 float64 // the 99th percentile of the last 128 frames' work, ms
	Hits     uint64  // hits of the watchpoints set now
}

// Agent is what a transport is given as the agent starts it.
type Agent struct {
	Server        *server.Server // serves the transport's sessions: Server.Serve(listener)
	Game          string
	Instance      string        // the agent's name among others
	URL           string        // Options.Broker
	Prefix        string        // Options.BrokerPrefix ("" for the default)
	AnnounceEvery time.Duration // Options.AnnounceEvery
	Started       time.Time
	Status        func() Status // safe from any goroutine
	Token         string        // Options.Token: the instance's signing key derives from it
	Creds, CA     string        // Options.BrokerCreds, Options.BrokerCA: files
	SessionIdle   time.Duration // how long a session may be silent before it ends (0: the fleet's default)
}

// Running is a started transport; the agent closes it as it closes,
// before it disconnects its clients.
type Running interface {
	Close()
	// Counts are the transport's counters by name ("errors": the
	// connection's failures; others of its own).
	Counts() map[string]uint64
	// State says how the connection stands, in words: "connected",
	// "refused by the broker: ...; retrying", ...
	State() string
}

// Broker starts the broker transport; nil until package inspector/broker
// is linked in.
var Broker func(Agent) (Running, error)
