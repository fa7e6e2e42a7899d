// Package benchpair times a subject against a plain-Go baseline doing the
// same work, interleaved in each iteration with the order alternating, and
// reports both and their ratio: on a machine whose speed drifts 20-50%
// over minutes, a ratio from interleaved runs is steadier than one from
// two benchmarks run one after the other.
//
//	benchpair.Run(b, n, "ns/entity", func() { subject(n) }, func() { baseline(n) })
package benchpair

import (
	"testing"
	"time"
)

// Run times subject and baseline alternately in each iteration of b and
// reports per unit (per: the units one call does) the subject's time, the
// baseline's ("baseline-" unit) and their ratio ("x-baseline"), with
// allocations.
func Run(b *testing.B, per float64, unit string, subject, baseline func()) {
	var subj, base time.Duration
	b.ReportAllocs()
	timed := func(f func()) time.Duration {
		t0 := time.Now()
		f()
		return time.Since(t0)
	}
	for i := 0; b.Loop(); i++ {
		// The order alternates: whichever runs second finds the caches
		// the first one left.
		if i%2 == 0 {
			base += timed(baseline)
			subj += timed(subject)
		} else {
			subj += timed(subject)
			base += timed(baseline)
		}
	}
	n := float64(b.N) * per
	b.ReportMetric(float64(subj.Nanoseconds())/n, unit)
	b.ReportMetric(float64(base.Nanoseconds())/n, "baseline-"+unit)
	b.ReportMetric(float64(subj)/float64(max(base, 1)), "x-baseline")
}
