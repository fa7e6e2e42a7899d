package broker_test

import (
	"os"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
	_ "github.com/ecsinspect/ecsinspect/inspector/broker"
)

// A game that reports to a fleet broker, as docs/EMBEDDING.md shows it.
func Example() {
	world, schedule, matchID := ecs.NewWorld(), ecs.NewSchedule(), "7"
	agent := inspector.New(world, inspector.Options{
		Game: "arena", Schedule: schedule,
		Addr:     "", // no socket: the broker only
		Broker:   "nats://ops:secret@nats.internal:4222",
		Instance: "match-" + matchID, // letters, digits, '-' and '_'
		Token:    os.Getenv("ECSINSPECT_TOKEN"),
	})
	defer agent.Close()
}

// A game that reports to a broker over TLS, as docs/FLEET.md shows it.
func Example_tls() {
	world := ecs.NewWorld()
	agent := inspector.New(world, inspector.Options{
		Addr:     "", // no socket: the broker only
		Broker:   "tls://game-match-01:PASSWORD@broker.internal:4222",
		Instance: "match-01",
		Token:    os.Getenv("ECSINSPECT_TOKEN"),
		BrokerCA: "/etc/ecsinspect/ca.pem",
	})
	defer agent.Close()
}
