package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/klauspost/compress/zstd"
)

// BenchmarkEncodeKeyframe is a recording's keyframe of the 100k demo
// world: the capture on the game goroutine and the encoding after it
// (conversion, byte planes, the allocator's generations, compression).
// The baseline does the least any keyframe does with the same memory:
// copy every column's bytes and compress them as one block. Interleaved,
// the order alternating; x-baseline is keyframe over baseline.
func BenchmarkEncodeKeyframe(b *testing.B) {
	const n = 100_000
	sim := ecosystem.New(n, 1)
	sim.Step()
	a := New(sim.World, Options{Addr: "127.0.0.1:0", RewindBytes: -1})
	s := record.NewStream(a.w, a.summaryOf)
	keyframe := func() (time.Duration, int) {
		start := time.Now()
		s.Enc.Restart()
		f, err := s.Encode(s.Capture())
		if err != nil {
			b.Fatal(err)
		}
		if !f.Full {
			b.Fatal("the frame is not a keyframe")
		}
		return time.Since(start), len(f.Body)
	}
	zenc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
	if err != nil {
		b.Fatal(err)
	}
	plain := func() (time.Duration, int) {
		start := time.Now()
		c := sim.World.Inspect().NewCapturer().Capture(true)
		var raw []byte
		for _, t := range c.Tables {
			for _, col := range t.Columns {
				raw = append(raw, col.Raw...)
			}
		}
		body := zenc.EncodeAll(raw, nil)
		return time.Since(start), len(body)
	}
	if _, size := keyframe(); size == 0 {
		b.Fatal("an empty keyframe")
	}
	var tKey, tPlain time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			d, _ := keyframe()
			tKey += d
			d, _ = plain()
			tPlain += d
		} else {
			d, _ := plain()
			tPlain += d
			d, _ = keyframe()
			tKey += d
		}
	}
	b.ReportMetric(float64(tKey)/float64(max(tPlain, 1)), "x-baseline")
	b.ReportMetric(float64(tKey.Nanoseconds())/float64(b.N)/n, "ns/entity")
}
