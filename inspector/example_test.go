package inspector_test

import (
	"context"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
)

// The agent in a game loop: Start once, Sync once a frame after the
// systems and the world's Tick, a post-mortem on panic, Release on Ctrl-C
// (a paused game gets out of Sync), Close at the end. The loop paces
// itself: Sync never sleeps for the game. `ecsinspect attach` then
// connects to 127.0.0.1:7777.
func Example() {
	w := ecs.NewWorld()
	s := ecs.NewSchedule()
	// ... register components and systems ...
	agent := inspector.New(w, inspector.Options{Game: "hive", Schedule: s})
	if err := agent.Start(); err != nil {
		log.Fatal(err)
	}
	defer agent.Close()                       // runs last
	defer agent.PanicSnapshot("crash.ecsrec") // runs first: the world as the panic left it

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() { <-ctx.Done(); agent.Release() }() // Ctrl-C: a paused game gets out of Sync

	tick := time.NewTicker(time.Second / 60) // pace the loop: Sync never sleeps for you
	defer tick.Stop()
	for ctx.Err() == nil {
		<-tick.C
		s.Run(w)
		if err := w.Tick(); err != nil {
			log.Print(err) // commands of the world's own buffer that were skipped
		}
		agent.Sync() // the agent's only touch of the world: bounded, never waits on a socket
	}
}
