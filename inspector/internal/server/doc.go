// Package server is the agent's server half: the listeners (a TCP or Unix
// socket, sessions over a broker handed in as a net.Listener), handshakes
// with their own slots, tokens with a back-off per host, the admitted
// clients with their request queues, budgets and writer goroutines, and
// the door that refuses requests past the protocol's bounds. It never
// touches the world: the game half takes clients' arrivals from Events,
// their requests from Client.NextRequest on the game goroutine, and hands
// answers back with Client.Answer, Job and Frame, which the client's
// writer encodes and sends.
//
//	srv := server.New(server.Config{Game: "grazers", MaxClients: 8, ...})
//	ln, err := server.Listen("127.0.0.1:7777", "", false, 0o600)
//	srv.Serve(ln)
//	// on the game goroutine, each frame:
//	for ev := range srv.Events() { ... }          // joins and leaves
//	m := c.NextRequest(); c.Answer(reply)         // per client, in turns
package server
