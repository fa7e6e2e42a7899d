package testgame

import (
	"fmt"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
	"github.com/ecsinspect/ecsinspect/inspector"
	_ "github.com/ecsinspect/ecsinspect/inspector/broker" // Options.Broker's transport
)

// Fleet runs a local broker and n demo worlds of animals each (seeds 1 to
// n), their agents reaching it as demo-01, demo-02, ... and announcing
// themselves every 200 ms; bug, if set, is turned on in buggy (an index).
// It returns the broker and the agents.
func Fleet(t testing.TB, n, animals int, bug string, buggy int) (*localbroker.Broker, []*inspector.Agent) {
	b, err := localbroker.Start(localbroker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Shutdown) // last: after the games' cleanups
	agents := make([]*inspector.Agent, n)
	for i := range n {
		sim := ecosystem.New(animals, uint64(i+1))
		if i == buggy {
			if err := sim.SetBug(bug); err != nil {
				t.Fatal(err)
			}
		}
		agent := inspector.New(sim.World, inspector.Options{Broker: b.URL(), Instance: fmt.Sprintf("demo-%02d", i+1),
			Game: "ecosystem", Schedule: sim.Schedule, AnnounceEvery: 200 * time.Millisecond})
		if err := agent.Start(); err != nil {
			t.Fatal(err)
		}
		Loop(t, 5*time.Millisecond, func() { sim.Step(); agent.Sync() })
		t.Cleanup(func() { agent.Close() })
		agents[i] = agent
	}
	return b, agents
}
