// Package inspector is the agent a game links to serve its ecs.World to
// inspector clients (the ecsinspect terminal UI, scripts) over TCP, a
// Unix socket or a NATS broker (with package inspector/broker imported),
// without slowing the game.
//
// Three lines in the game:
//
//	agent := inspector.New(world, inspector.Options{Game: "grazers", Schedule: schedule})
//	if err := agent.Start(); err != nil { log.Fatal(err) }
//	for running { schedule.Run(world); world.Tick(); agent.Sync() }
//
// Sync, on the game goroutine, is the only place the agent touches the
// world: it applies the clients' commands in arrival order, copies what due
// subscriptions ask for (a summary costs O(archetypes + systems), a page the
// rows asked for) and hands the copies to per-client writer goroutines that
// encode and send them. A slow client gets the newest frame of each
// subscription (older ones are coalesced) and is dropped if its socket stays
// stuck; the game never waits on a socket. While a client has paused the
// game, Sync blocks, still serving commands and subscriptions.
//
// No client can make the game wait or grow without bound: requests are
// checked at the door against the limits in limits.go (PROTOCOL.md lists
// them with their error codes), take turns within a 2 ms budget per frame,
// and a client that lets too much wait unread is dropped with a reason.
// PanicSnapshot, deferred in the game loop, writes a post-mortem snapshot.
//
// The agent is two halves: the server (package internal/server: listeners,
// handshakes, tokens, the clients with their queues and writers, the door
// that checks requests; a transport plugs in as a net.Listener) and the
// game side Sync drives (subscriptions, watchpoints, recorders, the rewind
// ring), which one handler per request type (requests.go) carries requests
// into. Queries run on the one
// evaluator of package query, over a copy of the rows the kernel's own
// tests passed (queryview.go).
//
// By default the agent listens on 127.0.0.1:7777 and refuses to listen on a
// reachable address without a token. Options.ReadOnly refuses every command
// that changes the world.
package inspector
