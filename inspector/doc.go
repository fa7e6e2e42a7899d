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
// checked at the door against the protocol's limits (protocol.MaxPageRows
// and the rest; PROTOCOL.md lists them with their error codes), take turns
// within a 2 ms budget per frame, and a client that lets too much wait
// unread is dropped with a reason.
// PanicSnapshot, deferred in the game loop, writes a post-mortem snapshot.
//
// This package is the embedding API and the game half Sync drives: the
// frame's turn (agent.go), pauses and stops inside a frame (halt.go), one
// handler per request type (requests.go, commands.go), subscriptions and
// world feeds, rewinds. Its parts are internal packages, none of which
// reaches back into this one:
//
//	internal/server    listeners, handshakes, tokens, clients and their writers, the door
//	internal/answer    a subscription's frame and a request's refusal, as the parts hand them to a writer
//	internal/live      queries on the live world: the kernel's window, or a copy evaluated off the game goroutine
//	internal/watch     watchpoints, their checks and their budget
//	internal/record    recordings, the in-memory ring, a rewind's rebuild
//	internal/values    Go values, schemas and handles as the wire carries them
//	internal/transport what a separately linked transport (package broker) is given
//	internal/graves    the last state of recently despawned entities
//	internal/dangling  the handles stored in the world that name no live entity
//	internal/resourcewrites who last changed each part of the resources, while a client looks
//	internal/budget    the one bound on clients' work on the game goroutine a frame
//
// By default the agent listens on 127.0.0.1:7777 and refuses to listen on a
// reachable address without a token. Options.ReadOnly refuses every command
// that changes the world.
package inspector
