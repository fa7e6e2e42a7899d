package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
)

// BenchmarkRewind is a Rewind of the 100k demo: the frames from the
// in-memory recording's keyframe to the tick farthest from one
// (decompressed, decoded, applied), the image made of them, and the restore. The baseline, in the
// same loop with the order alternating, is the kernel's part alone: a
// restore from an image already in memory. The world is put back to the
// same tick each time, after a few frames played on.
func BenchmarkRewind(b *testing.B) {
	b.Run("entities=100000", func(b *testing.B) {
		s := ecosystem.New(100_000, 1)
		a := New(s.World, Options{Addr: "127.0.0.1:0", Schedule: s.Schedule, RewindHz: 1000, RewindBytes: 1 << 30})
		for range 12 {
			s.Step()
			a.Sync()
		}
		deadline := time.Now().Add(time.Minute)
		for a.ringMem.Describe().Frames < 12 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // the ring's encoder catches up
		}
		// The tick farthest from its keyframe: the most deltas to apply.
		rr := a.ringMem.Describe()
		var tick uint64
		var frames []record.Frame
		for t := rr.From; t <= rr.To; t++ {
			if f, err := a.ringMem.Span(t); err == nil && len(f) > len(frames) {
				tick, frames = t, f
			}
		}
		rewind := func() time.Duration {
			start := time.Now()
			rb, err := record.Rebuild(frames, record.TypesOf(a.w))
			if err == nil {
				a.resourcesInto(rb)
				err = s.World.Restore(rb.Image)
			}
			if err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		}
		rewind()
		img, err := s.World.Image()
		if err != nil {
			b.Fatal(err)
		}
		want := s.World.Len()
		kernel := func() time.Duration {
			start := time.Now()
			if err := s.World.Restore(img); err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		}
		var tRewind, tKernel time.Duration
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			for range 2 {
				s.Step()
			}
			b.StartTimer()
			if i%2 == 0 {
				tRewind += rewind()
				tKernel += kernel()
			} else {
				tKernel += kernel()
				tRewind += rewind()
			}
			if s.World.Len() != want || s.World.Frame() != tick {
				b.Fatalf("rewound to %d entities at tick %d, want %d at %d", s.World.Len(), s.World.Frame(), want, tick)
			}
		}
		b.ReportMetric(float64(tRewind.Milliseconds())/float64(b.N), "ms/rewind")
		b.ReportMetric(float64(len(frames)), "frames-replayed")
		b.ReportMetric(float64(tRewind)/float64(max(tKernel, 1)), "x-baseline")
	})
}
