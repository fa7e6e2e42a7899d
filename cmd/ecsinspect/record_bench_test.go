package main

import (
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ecsinspect/ecsinspect/demo"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// BenchmarkRecordSocket: the demo binary's own game and loop (demo.Start
// and Game.Run, a 60 Hz ticker) with 100,000 animals, recorded every frame
// over a socket by the record command's own code (runRecord, as
// `ecsinspect record ADDR -o FILE --frames N` runs it) for b.N frames.
// kept is the frames the file holds over the ticks they span; ticks/s the
// game's rate over its whole run (3 s more than the recording, for the
// command to connect); cores the process's CPU (game, agent and the
// command). The baseline is the same game unrecorded for a tenth of the
// frames. The in-game twin is in cmd/demo.
func BenchmarkRecordSocket(b *testing.B) {
	o := demo.Options{Entities: 100_000, Hz: 60, Seed: 1, Agent: inspector.Options{Addr: "127.0.0.1:0"}}
	o.Frames = max(b.N/10, 60)
	baseTicks, baseCores := testgame.RunDemo(b, o, nil)
	path := filepath.Join(b.TempDir(), "socket.ecsrec")
	recorded := make(chan error, 1)
	o.Frames = b.N + 180
	b.ResetTimer()
	ticks, cores := testgame.RunDemo(b, o, func(addr string) {
		recorded <- runRecord([]string{addr, "-o", path, "--frames", strconv.Itoa(b.N)}, io.Discard, nil)
	})
	b.StopTimer()
	if err := <-recorded; err != nil {
		b.Fatal(err)
	}
	testgame.ReportKept(b, path)
	b.ReportMetric(ticks, "ticks/s")
	b.ReportMetric(cores, "cores")
	b.ReportMetric(baseTicks, "baseline-ticks/s")
	b.ReportMetric(baseCores, "baseline-cores")
}
