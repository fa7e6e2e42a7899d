package ark

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	ark "github.com/mlange-42/ark/ecs"
)

// pairedWithArk runs ours and ark's alternately, the order flipping each
// iteration, and reports ours over ark's as x-ark: the comparison the
// README quotes, from one run on one machine state.
func pairedWithArk(b *testing.B, n int, ours, arks func() time.Duration) {
	var tOurs, tArk time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			tOurs += ours()
			tArk += arks()
		} else {
			tArk += arks()
			tOurs += ours()
		}
		i++
	}
	b.ReportMetric(float64(tOurs)/float64(tArk), "x-ark")
	b.ReportMetric(float64(tOurs.Nanoseconds())/float64(i)/float64(n), "ns/entity")
	b.ReportMetric(float64(tArk.Nanoseconds())/float64(i)/float64(n), "ark-ns/entity")
}

func timed(f func()) func() time.Duration {
	return func() time.Duration {
		start := time.Now()
		f()
		return time.Since(start)
	}
}

// BenchmarkVsArk: random access by handle (ours Read, which marks
// nothing, Get, which marks the row written, and At, Read that panics
// where Read says nil and so inlines, against ark's Get, which panics) at 1k
// and 1M entities in random order, and a batch spawn of a million into a
// warm world, each interleaved with ark's.
func BenchmarkVsArk(b *testing.B) {
	for _, n := range []int{1000, million} {
		aw, aents := arkWorld(n)
		ew, eents := ecsWorld(n)
		perm := rand.New(rand.NewPCG(5, 6)).Perm(n)
		ashuf, eshuf := make([]ark.Entity, n), make([]ecs.Entity, n)
		for i, j := range perm {
			ashuf[i], eshuf[i] = aents[j], eents[j]
		}
		am, em := ark.NewMap[position](aw), ecs.NewMap[position](ew)
		if arkGetAll(am, ashuf) != ecsReadAll(em, eshuf) {
			b.Fatal("the engines hold different positions")
		}
		reps := max(1, 100_000/n) // a 1k run is too short to time alone
		loop := func(f func()) func() {
			return func() {
				for range reps {
					f()
				}
			}
		}
		arkGet := timed(loop(func() { arkGetAll(am, ashuf) }))
		b.Run(fmt.Sprintf("op=read/n=%d", n), func(b *testing.B) {
			pairedWithArk(b, n*reps, timed(loop(func() { ecsReadAll(em, eshuf) })), arkGet)
		})
		b.Run(fmt.Sprintf("op=get/n=%d", n), func(b *testing.B) {
			pairedWithArk(b, n*reps, timed(loop(func() { ecsGetAll(em, eshuf) })), arkGet)
		})
		if ecsAtAll(em, eshuf) != ecsReadAll(em, eshuf) {
			b.Fatal("At and Read read different positions")
		}
		b.Run(fmt.Sprintf("op=at/n=%d", n), func(b *testing.B) {
			pairedWithArk(b, n*reps, timed(loop(func() { ecsAtAll(em, eshuf) })), arkGet)
		})
	}
	b.Run("op=spawn2batch/n=1000000", func(b *testing.B) {
		spawn := func(setup func() func()) func() time.Duration {
			return func() time.Duration {
				run := setup() // a warm world, not timed
				start := time.Now()
				run()
				return time.Since(start)
			}
		}
		ours := spawn(func() func() { m := ecsWarm(); return func() { ecsSpawnBatch(m, million) } })
		arks := spawn(func() func() { m := arkWarm(); return func() { arkSpawnBatch(m, million) } })
		pairedWithArk(b, million, ours, arks)
	})
}
