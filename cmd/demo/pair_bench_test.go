package main

import (
	"testing"
	"time"
)

// framesPaired runs subject and baseline frames alternately, the order
// flipping each iteration (this VM drifts, and whichever runs second finds
// the caches the first left), and reports the ratio of their totals as
// x-baseline with each one's time per frame. It returns the iterations.
func framesPaired(b *testing.B, subject, baseline func() time.Duration) int {
	var tS, tB time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i%2 == 0 {
			tS += subject()
			tB += baseline()
		} else {
			tB += baseline()
			tS += subject()
		}
		i++
	}
	b.ReportMetric(float64(tS)/float64(tB), "x-baseline")
	b.ReportMetric(float64(tS.Nanoseconds())/float64(i), "ns/frame")
	b.ReportMetric(float64(tB.Nanoseconds())/float64(i), "baseline-ns/frame")
	return i
}
