package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// BenchmarkDemoFrame: the demo's frame (its systems, then the agent's
// Sync) with the default agent attached and one client subscribed to the
// summary, as someone watching the overview; p50 and p99 of those frames,
// in ms. The same world without an agent, from the same seed, steps in the
// same loop with the order alternating: x-baseline is the agent's share.
func BenchmarkDemoFrame(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			watched, plain := ecosystem.New(n, 1), ecosystem.New(n, 1)
			agent := inspector.New(watched.World, inspector.Options{Addr: "127.0.0.1:0", Game: "demo", Schedule: watched.Schedule})
			if err := agent.Start(); err != nil {
				b.Fatal(err)
			}
			defer agent.Close()
			o, err := client.Dial(agent.Addr(), "")
			if err != nil {
				b.Fatal(err)
			}
			defer o.Close()
			if err := o.Conn.Send(&protocol.Subscribe{ID: 1, What: protocol.SubSummary, Hz: 10}); err != nil {
				b.Fatal(err)
			}
			go func() { // the client reads what it is sent, as a UI does
				for {
					if _, err := o.Conn.Receive(); err != nil {
						return
					}
				}
			}()
			withAgent, alone := demoFrames(b, watched, agent, plain)
			var frames []time.Duration
			var tAgent, tAlone time.Duration
			for i := 0; b.Loop(); i++ {
				var f time.Duration
				if i%2 == 0 {
					f = withAgent()
					tAlone += alone()
				} else {
					tAlone += alone()
					f = withAgent()
				}
				tAgent += f
				frames = append(frames, f)
			}
			slices.Sort(frames)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(frames[len(frames)/2]), "p50-ms")
			b.ReportMetric(ms(frames[min(len(frames)*99/100, len(frames)-1)]), "p99-ms")
			b.ReportMetric(float64(tAgent)/float64(max(tAlone, 1)), "x-baseline")
			b.ReportMetric(float64(tAgent.Nanoseconds())/float64(len(frames))/float64(n), "ns/entity")
		})
	}
}
