package inspector_test

import (
	"log"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// The agent in a game loop: Start once, Sync once a frame after the
// systems and the world's Tick, a post-mortem on panic, Close at the end.
// `ecsinspect attach` then connects to 127.0.0.1:7777.
func Example() {
	w := ecs.NewWorld()
	schedule := ecs.NewSchedule()
	// ... register components and systems ...
	agent := inspector.New(w, inspector.Options{Game: "my game", Schedule: schedule})
	if err := agent.Start(); err != nil {
		log.Fatal(err)
	}
	defer agent.Close()
	defer agent.PanicSnapshot("crash.ecsrec") // a panic in any system leaves the world at the crash here

	running := func() bool { return w.Frame() < 600 }
	for running() {
		schedule.Run(w)
		if err := w.Tick(); err != nil {
			log.Print(err)
		}
		agent.Sync() // the agent's only touch of the world: bounded, never waits on a socket
	}
}
