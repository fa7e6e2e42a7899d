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

// BenchmarkRestore puts the 100,000-animal world back as an image of it
// says, after ten frames went on: the kernel's part of a rewind (the
// image is already in memory; reading one from a recording is not timed).
func BenchmarkRestore(b *testing.B) {
	s := New(100_000, 1)
	for range 5 {
		s.Step()
	}
	img, err := s.World.Image()
	if err != nil {
		b.Fatal(err)
	}
	want := s.World.Len()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for range 3 {
			s.Step()
		}
		b.StartTimer()
		if err := s.World.Restore(img); err != nil {
			b.Fatal(err)
		}
	}
	if s.World.Len() != want {
		b.Fatalf("restored %d entities, want %d", s.World.Len(), want)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/restore")
}
