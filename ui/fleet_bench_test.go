package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker"
)

// BenchmarkFleetViewLists: 200 instances on a broker, each on its own
// connection announcing itself as agents do; an iteration is an attach:
// from opening the Fleet view until its table lists all 200. Target: at
// most 1 s (reported as ms-to-list).
func BenchmarkFleetViewLists(b *testing.B) {
	const instances = 200
	br, err := localbroker.Start(localbroker.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Shutdown()
	target, err := fleet.ParseURL(br.URL())
	if err != nil {
		b.Fatal(err)
	}
	for i := range instances {
		nc, err := fleet.Connect(target, "game", 5*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		s := fleet.Status{Game: "arena", Instance: fmt.Sprintf("match-%03d", i), Host: "box", Tick: uint64(i), TPS: 60, Entities: 1000}
		p, err := fleet.Present(nc, target.Prefix, 2*time.Second, fleet.NewInstanceKey(), func() fleet.Status { return s })
		if err != nil {
			b.Fatal(err)
		}
		defer p.Stop()
	}
	var worst time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		fl, err := client.OpenFleet(target.URL(), "")
		if err != nil {
			b.Fatal(err)
		}
		f, err := newFleetModel(fl)
		if err != nil {
			b.Fatal(err)
		}
		for {
			f.Update(fleetTickMsg{})
			if len(f.rows) == instances {
				break
			}
			if time.Since(start) > 10*time.Second {
				b.Fatalf("%d of %d instances listed after 10 s", len(f.rows), instances)
			}
			select {
			case <-f.roster.Changed():
			case <-time.After(5 * time.Millisecond):
			}
		}
		worst = max(worst, time.Since(start))
		fl.Close()
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms-to-list")
}
