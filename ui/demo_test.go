package ui

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/cmd/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// demoWorld is the demo ecosystem the UI tests look at.
type demoWorld struct {
	*ecosystem.Sim
	w     *ecs.World
	sched *ecs.Schedule
}

func newDemoWorld(n int, seed uint64) *demoWorld {
	sim := ecosystem.New(n, seed)
	return &demoWorld{Sim: sim, w: sim.World, sched: sim.Schedule}
}

func (d *demoWorld) step() { d.Step() }

// liveDemo runs the demo world with an agent; the function it returns runs
// code on the game goroutine.
func liveDemo(t *testing.T) (string, *inspector.Agent, func(func())) {
	d := newDemoWorld(1000, 5)
	agent := inspector.New(d.w, inspector.Options{Addr: "127.0.0.1:0", Game: "ecosystem", Schedule: d.sched})
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	onGame := gameLoop(t, 2*time.Millisecond, func() { d.step(); agent.Sync() })
	return agent.Addr(), agent, onGame
}
