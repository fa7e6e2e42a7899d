package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// benchWatches are the value watchpoints BenchmarkWatchpoints sets, in
// order: none of them fires on the demo (log-only, so none would pause).
var benchWatches = []string{
	"Energy.Value<-1", "Position.X<-5", "Position.Y<-5", "Velocity.X>1000", "Velocity.Y>1000",
	"Energy.Value>100000", "Age.Frames>100000000", "Position.X>1000000", "Position.Y>1000000", "Energy.Value<-2",
}

// BenchmarkWatchpoints: the game goroutine's time per frame (the systems,
// which check the watchpoints as each ends, and the agent's Sync) of the
// 100,000-animal demo with 0, 1 and 10 value watchpoints set, against the
// same world with none, interleaved with the order alternating. Both
// worlds start from one seed, so they do the same work. The watchpoints
// test fields every system writes every frame (Energy, Position), the
// worst case for a check that looks only at rows written.
func BenchmarkWatchpoints(b *testing.B) {
	for _, n := range []int{0, 1, 10} {
		b.Run(fmt.Sprintf("watch=%d", n), func(b *testing.B) {
			watched, plain := ecosystem.New(100_000, 1), ecosystem.New(100_000, 1)
			agentW := inspector.New(watched.World, inspector.Options{Addr: "127.0.0.1:0", Game: "watched", Schedule: watched.Schedule})
			agentP := inspector.New(plain.World, inspector.Options{Addr: "127.0.0.1:0", Game: "plain", Schedule: plain.Schedule})
			for _, a := range []*inspector.Agent{agentW, agentP} {
				if err := a.Start(); err != nil {
					b.Fatal(err)
				}
				defer a.Close()
			}
			frame := func(s *ecosystem.Sim, a *inspector.Agent) time.Duration {
				start := time.Now()
				s.Step()
				a.Sync()
				return time.Since(start)
			}
			// Set the watchpoints through the protocol, the games running.
			done := make(chan error, 1)
			go func() {
				o, err := client.Dial(agentW.Addr(), "")
				if err != nil {
					done <- err
					return
				}
				defer o.Close()
				for _, expr := range benchWatches[:n] {
					if _, err := o.Do(func(id uint32) protocol.Message { return &protocol.Watch{ID: id, Expr: expr, Log: true} }); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			for set := false; !set; {
				select {
				case err := <-done:
					if err != nil {
						b.Fatal(err)
					}
					set = true
				default:
				}
				frame(watched, agentW)
				frame(plain, agentP)
			}
			for range 5 {
				frame(watched, agentW)
				frame(plain, agentP)
			}
			if watched.World.Len() != plain.World.Len() {
				b.Fatalf("the worlds differ before the loop: %d and %d entities", watched.World.Len(), plain.World.Len())
			}
			framesPaired(b, func() time.Duration { return frame(watched, agentW) }, func() time.Duration { return frame(plain, agentP) })
		})
	}
}
