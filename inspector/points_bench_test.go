package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/internal/benchpair"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// BenchmarkSpatialStream: the 100k demo with a client following the
// spatial view's stream (a 320x184 density grid of every entity's
// position, 10 Hz) against the same demo with a client following a page
// of the same entities (100 rows, 10 Hz), the frames interleaved. It
// reports the frame time's ratio and each stream's bytes a frame sent.
func BenchmarkSpatialStream(b *testing.B) {
	start := func(sub protocol.Subscribe) (*ecosystem.Sim, *Agent, func()) {
		s := ecosystem.New(100_000, 1)
		a := New(s.World, Options{Addr: "127.0.0.1:0", Schedule: s.Schedule})
		if err := a.Start(); err != nil {
			b.Fatal(err)
		}
		stop := reader(b, a.Addr(), sub)
		deadline := time.Now().Add(10 * time.Second)
		for a.srv.Counts().FramesSent < 2 { // connected and served
			if time.Now().After(deadline) {
				b.Fatalf("no %s frame in 10 s", sub.What)
			}
			stepSim(s, a)
		}
		return s, a, func() { stop(); a.Close() }
	}
	subj, sa, stopS := start(protocol.Subscribe{ID: 1, What: protocol.SubPoints, Hz: 10, Query: protocol.DefaultPoints, Dots: []int{320, 184}})
	defer stopS()
	base, ba, stopB := start(protocol.Subscribe{ID: 1, What: protocol.SubPage, Hz: 10, Query: "Position", Limit: 100})
	defer stopB()
	if subj.World.Len() != base.World.Len() {
		b.Fatalf("the worlds differ before the loop: %d and %d entities", subj.World.Len(), base.World.Len())
	}
	sentS, sentB := sa.srv.Counts().BytesSent, ba.srv.Counts().BytesSent
	var ts, tb time.Duration
	benchpair.Run(b, 1, "ns/frame", func() { ts += stepSim(subj, sa) }, func() { tb += stepSim(base, ba) })
	reportTicks(b, ts, tb)
	b.ReportMetric(float64(sa.srv.Counts().BytesSent-sentS)/float64(b.N), "points-B/frame")
	b.ReportMetric(float64(ba.srv.Counts().BytesSent-sentB)/float64(b.N), "page-B/frame")
}
