// Package broker is the agent's broker transport: imported by a game, it
// lets inspector.Options.Broker dial out to a NATS server, announce the
// game there and serve clients over it as over the agent's socket (the
// same handshake, tokens, limits and budgets; PROTOCOL.md, "Over NATS").
// A game that does not import it links no NATS code.
//
//	import (
//		"github.com/ecsinspect/ecsinspect/inspector"
//		_ "github.com/ecsinspect/ecsinspect/inspector/broker"
//	)
//
//	agent := inspector.New(world, inspector.Options{
//		Game: "grazers", Broker: "nats://127.0.0.1:4222", Instance: "match-17", Token: token})
//	if err := agent.Start(); err != nil { log.Fatal(err) }
//
// A broker that is down or restarts costs the game nothing: the transport
// reconnects with backoff on its own goroutines, and sessions the restart
// broke end with an error their clients see.
package broker
