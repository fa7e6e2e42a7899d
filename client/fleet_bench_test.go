package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
	"github.com/ecsinspect/ecsinspect/inspector"
	_ "github.com/ecsinspect/ecsinspect/inspector/broker" // Options.Broker's transport
	"github.com/ecsinspect/ecsinspect/internal/benchpair"
)

type benchPos struct{ X, Y float64 }

// agentFleet starts a broker and n agents in this process, each on a
// world of 100 entities synced 60 times a second, sharing a fleet token
// (sealed sessions, signed announcements), and returns the broker's URL
// once all n announced themselves.
func agentFleet(b *testing.B, n int, token string) string {
	br, err := localbroker.Start(localbroker.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(br.Shutdown)
	for i := range n {
		w := ecs.NewWorld()
		ecs.NewMap[benchPos](w).SpawnBatch(100, func(i int, _ ecs.Entity, p *benchPos) { p.X = float64(i) })
		a := inspector.New(w, inspector.Options{Addr: "", Broker: br.URL(), Instance: fmt.Sprintf("match-%03d", i), Token: token, Game: "arena"})
		if err := a.Start(); err != nil {
			b.Fatal(err)
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			t := time.NewTicker(time.Second / 60)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					a.Sync()
				}
			}
		}()
		b.Cleanup(func() { close(stop); <-done; a.Close() })
	}
	f, err := client.OpenFleet(br.URL(), token)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if ms, err := f.List(""); err == nil && len(ms) == n {
			return br.URL()
		}
		if time.Now().After(deadline) {
			b.Fatalf("the %d agents did not all announce within 30 s", n)
		}
	}
}

// BenchmarkFleetDiscover: 200 agents on a broker; an iteration is what
// `dump --all` does to list them: connect, ask every instance, and take
// the announcements until they stop coming. Reported: ms to list all 200
// (target: under 1,000), against listing a fleet of one on the same broker
// (a filter that keeps one), interleaved.
func BenchmarkFleetDiscover(b *testing.B) {
	const n, token = 200, "bench-token-0123456789abcdef"
	url := agentFleet(b, n, token)
	list := func(filter string, want int) func() {
		return func() {
			f, err := client.OpenFleet(url, token)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			ms, err := f.List(filter)
			if err != nil || len(ms) != want {
				b.Fatalf("listed %d of %d: %v", len(ms), want, err)
			}
		}
	}
	list("", n)()
	benchpair.Run(b, 1e6, "ms-to-list", list("", n), list("instance=match-007", 1))
}

// BenchmarkFleetFanOut: 200 agents; an iteration is a query fanned out to
// every instance (a sealed session with each on one broker connection,
// all in flight at once), against the same query to one instance,
// interleaved. Target: x-baseline at most 2.
func BenchmarkFleetFanOut(b *testing.B) {
	const n, token = 200, "bench-token-0123456789abcdef"
	url := agentFleet(b, n, token)
	f, err := client.OpenFleet(url, token)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	all, err := f.List("")
	if err != nil || len(all) != n {
		b.Fatalf("listed %d: %v", len(all), err)
	}
	query := func(members []fleet.Member) func() {
		return func() {
			for _, r := range f.QueryEach(members, "benchPos.X>=50", 5) {
				if r.Err != nil || r.Total != 50 {
					b.Fatalf("%s: %d matches, %v", r.Instance, r.Total, r.Err)
				}
			}
		}
	}
	query(all)()
	benchpair.Run(b, 1e6, "ms-per-fanout", query(all), query(all[:1]))
}
