package ecosystem

import "testing"

// BenchmarkStep: one frame of a 100,000-animal ecosystem.
func BenchmarkStep(b *testing.B) {
	s := New(100_000, 1)
	for range 30 {
		s.Step()
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.World.Len()), "ns/entity")
}
