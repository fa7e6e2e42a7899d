package inspector_test

import (
	"log"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// The agent in a game loop, as the README and EMBEDDING.md open with it.
func Example_gameLoop() {
	world := ecs.NewWorld()
	schedule := ecs.NewSchedule()
	running := false
	agent := inspector.New(world, inspector.Options{Game: "grazers", Schedule: schedule})
	if err := agent.Start(); err != nil { // listens on 127.0.0.1:7777
		log.Fatal(err)
	}
	defer agent.PanicSnapshot("crash.ecsrec") // a post-mortem if the game panics
	for running {
		schedule.Run(world)
		world.Tick()
		agent.Sync()
	}
}
