package main

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/nats-io/nats.go"
)

// BenchmarkBrokerCosts: the 100,000-animal demo's frame with its agent on
// a broker, against the same world's agent without one, interleaved:
// broker=up (announcing, nobody attached), broker=down (nothing listens
// at the broker's address: the agent retries with backoff), and
// broker=restarting (the broker stops, and 20 frames later starts again,
// every 40 frames), and broker=flooded (a stranger on the broker opens
// 20,000 sessions a second at the instance: it opens 20 a second and
// drops the rest unanswered).
// The game never waits on the broker: each should be about 1.0x (flooded:
// at most 1.10x, the broker and the flooder sharing the game's two cores).
func BenchmarkBrokerCosts(b *testing.B) {
	for _, mode := range []string{"up", "down", "restarting", "flooded"} {
		b.Run("broker="+mode, func(b *testing.B) {
			var br *localbroker.Broker
			url := "nats://127.0.0.1:" + strconv.Itoa(freePort(b))
			if mode != "down" {
				var err error
				if br, err = localbroker.Start(localbroker.Options{}); err != nil {
					b.Fatal(err)
				}
				defer func() { br.Shutdown() }()
				url = br.URL()
			}
			s, p := ecosystem.New(100_000, 1), ecosystem.New(100_000, 1)
			withBroker := inspector.New(s.World, inspector.Options{Addr: "127.0.0.1:0", Game: "demo", Schedule: s.Schedule, Broker: url, Instance: "bench"})
			plain := inspector.New(p.World, inspector.Options{Addr: "127.0.0.1:0", Game: "demo", Schedule: p.Schedule})
			for _, a := range []*inspector.Agent{withBroker, plain} {
				if err := a.Start(); err != nil {
					b.Fatal(err)
				}
				defer a.Close()
			}
			frame := func(sim *ecosystem.Sim, a *inspector.Agent) func() time.Duration {
				return func() time.Duration {
					start := time.Now()
					sim.Step()
					a.Sync()
					return time.Since(start)
				}
			}
			subject, baseline := frame(s, withBroker), frame(p, plain)
			for range 3 {
				subject()
				baseline()
			}
			if s.World.Len() != p.World.Len() {
				b.Fatalf("the worlds differ before the loop: %d and %d entities", s.World.Len(), p.World.Len())
			}
			if mode == "restarting" {
				inner, n, down := subject, 0, false
				subject = func() time.Duration {
					switch n++; {
					case n%40 == 0 && !down:
						br.Shutdown()
						down = true
					case n%40 == 20 && down:
						if err := br.Restart(); err != nil {
							b.Fatal(err)
						}
						down = false
					}
					return inner()
				}
			}
			if mode == "flooded" {
				defer flood(b, url, "bench")()
			}
			framesPaired(b, subject, baseline)
		})
	}
}

// flood opens 20 sessions a millisecond at instance on the broker at url,
// as a stranger would, until the function it returns is called.
func flood(b *testing.B, url, instance string) (stop func()) {
	target, err := fleet.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	nc, err := fleet.Connect(target, "flooder", 3*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	hello, err := protocol.Encode(&protocol.Hello{Version: protocol.Version, Client: "flood"})
	if err != nil {
		b.Fatal(err)
	}
	frame := protocol.AppendFrame(nil, hello)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			if i%20 == 0 {
				select {
				case <-done:
					return
				case <-tick.C:
				}
			}
			m := nats.NewMsg(fleet.UpSubject(target.Prefix, instance, fleet.AnonymousClient, "flood"+strconv.Itoa(i)))
			m.Header.Set(fleet.SeqHeader, "1")
			m.Data = frame
			if nc.PublishMsg(m) != nil {
				return
			}
		}
	}()
	return func() { close(done); <-stopped; nc.Close() }
}

// freePort is a loopback port nothing listens on.
func freePort(b *testing.B) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
