// Package fleet carries the inspector's protocol over a NATS broker, so one
// UI reaches every game of a fleet: games dial out (no port to open, NAT
// and firewalls as the broker handles them), announce themselves, and
// serve sessions whose bytes are exactly a socket's.
//
// A game's agent uses it through inspector.Options{Broker, Instance} with
// the broker transport imported (package inspector/broker).
// Tools use it through package client (client.OpenFleet: one broker
// connection for the roster and every session), or directly: a Broker
// connection, a Roster for the fleet, and sessions with instances:
//
//	t, _ := fleet.ParseURL("nats://127.0.0.1:4222")
//	b, err := fleet.ConnectBroker(t, "my tool", 3*time.Second, fleet.Timing{})
//	if err != nil { ... }
//	defer b.Close()
//	r, err := fleet.WatchRoster(b.Conn(), t.Prefix)
//	if err != nil { ... }
//	<-r.Changed()
//	for _, m := range r.Members() {
//		fmt.Println(m.Instance, m.Tick, m.Entities, m.Gone)
//	}
//	conn, err := b.Dial("match-17", 3*time.Second) // a net.Conn: the protocol's bytes
//
// PROTOCOL.md, "Over NATS", is the contract: subjects, how bytes map to
// messages, discovery, and what a broker's credentials do and do not
// protect. The local broker for development and tests is in the
// localbroker package.
package fleet
