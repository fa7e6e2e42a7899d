package bees

import (
	"fmt"
	"testing"
	"time"
)

// warmTicks brings a colony near its steady state, where bees are out in
// every activity, before anything is timed.
const warmTicks = 3000

// TestBothPortsLive: after the warm-up, both ports keep every bee and have
// bees in every activity, so the benchmark times the same kind of work.
func TestBothPortsLive(t *testing.T) {
	a, e, sc := newArcheBees(4000, 1), newECSBees(4000, 1, false), newECSBees(4000, 1, true)
	for range warmTicks {
		a.step()
		e.step()
		sc.step()
	}
	for name, c := range map[string][6]int{"arche": a.census(), "ours": e.census(), "ours scheduled": sc.census()} {
		sum := 0
		for i, n := range c {
			if n == 0 && i != 2 && i != 5 { // following and dancing come and go
				t.Fatalf("%s: no bee in activity %d: %v", name, i, c)
			}
			sum += n
		}
		if sum != 4000 {
			t.Fatalf("%s: %d bees in activities, want 4000: %v", name, sum, c)
		}
	}
}

// BenchmarkBees: arche-demo's bees, ported to ours as PORTING.md says,
// against the demo's own code on arche v0.15, in the same loop (the order
// alternating), unpaced, after a warm-up of 3,000 ticks each. An op is
// 100 ticks of each; x-arche is our time over arche's (below 1: ours is
// faster), ticks/s and arche-ticks/s each port's pace. mode=direct
// switches at once as the original does; mode=schedule runs the systems in
// a Schedule that applies each one's queued switches as it ends.
func BenchmarkBees(b *testing.B) {
	for _, n := range []int{4000, 20000} {
		for _, mode := range []string{"direct", "schedule"} {
			b.Run(fmt.Sprintf("bees=%d/mode=%s", n, mode), func(b *testing.B) { benchBees(b, n, mode == "schedule") })
		}
	}
}

func benchBees(b *testing.B, n int, scheduled bool) {
	{
		{
			a, e := newArcheBees(n, 1), newECSBees(n, 1, scheduled)
			for range warmTicks {
				a.step()
				e.step()
			}
			const ticks = 100
			run := func(step func()) time.Duration {
				start := time.Now()
				for range ticks {
					step()
				}
				return time.Since(start)
			}
			var ours, arches time.Duration
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					ours += run(e.step)
					arches += run(a.step)
				} else {
					arches += run(a.step)
					ours += run(e.step)
				}
				i++
			}
			b.ReportMetric(float64(ours)/float64(arches), "x-arche")
			b.ReportMetric(float64(i*ticks)/ours.Seconds(), "ticks/s")
			b.ReportMetric(float64(i*ticks)/arches.Seconds(), "arche-ticks/s")
		}
	}
}
