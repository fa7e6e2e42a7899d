package main

import (
	"path/filepath"
	"testing"

	"github.com/ecsinspect/ecsinspect/demo"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// BenchmarkRecordInGame: the demo binary's own game and loop (demo.Start
// and Game.Run, a 60 Hz ticker) with 100,000 animals, recording every
// frame in the game (--record), for b.N frames. kept is the frames the
// file holds over the ticks they span (the rest are gaps the file names);
// ticks/s the game's rate; cores the process's CPU (game, agent and
// recorder). The baseline is the same game unrecorded for a tenth of the
// frames: its ticks/s and cores. The socket's twin, through the record
// command's own code, is in cmd/ecsinspect.
func BenchmarkRecordInGame(b *testing.B) {
	o := demo.Options{Entities: 100_000, Hz: 60, Seed: 1, Agent: inspector.Options{Addr: "127.0.0.1:0"}}
	o.Frames = max(b.N/10, 60)
	baseTicks, baseCores := testgame.RunDemo(b, o, nil)
	o.Frames, o.Record = b.N, filepath.Join(b.TempDir(), "paced.ecsrec")
	b.ResetTimer()
	ticks, cores := testgame.RunDemo(b, o, nil)
	b.StopTimer()
	testgame.ReportKept(b, o.Record)
	b.ReportMetric(ticks, "ticks/s")
	b.ReportMetric(cores, "cores")
	b.ReportMetric(baseTicks, "baseline-ticks/s")
	b.ReportMetric(baseCores, "baseline-cores")
}
