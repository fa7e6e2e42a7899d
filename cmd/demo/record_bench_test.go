package main

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// BenchmarkRecordSocket: the 100,000-animal demo paced at 60 Hz, recorded
// every frame over a socket (client.StartRecording at hz 0, what
// `ecsinspect record` does) for b.N frames. kept is the frames the file
// holds over the frames the game ran while it recorded (the rest are gaps
// the file names); ticks/s the game's rate; cores the process's CPU (game,
// agent and recorder). The baseline is the same game unrecorded, paced
// the same, for a tenth of the frames: its ticks/s and cores.
func BenchmarkRecordSocket(b *testing.B) {
	benchRecordPaced(b, func(b *testing.B, agent *inspector.Agent, path string) func() error {
		rec, err := client.StartRecording(client.GameAt(agent.Addr(), ""), path, 0, 0)
		if err != nil {
			b.Fatal(err)
		}
		return rec.Stop
	})
}

// BenchmarkRecordInGame is BenchmarkRecordSocket recorded in the game's
// process (agent.Record at hz 0, what the demo's --record does).
func BenchmarkRecordInGame(b *testing.B) {
	benchRecordPaced(b, func(b *testing.B, agent *inspector.Agent, path string) func() error {
		var rec *inspector.Recorder
		var err error
		agent.Do(func() { rec, err = agent.Record(path, 0) })
		return func() error {
			if err != nil {
				return err
			}
			return rec.Stop()
		}
	})
}

// benchRecordPaced runs the paced demo with the recording start makes
// (its stop returned), and reports what it kept and what it cost.
func benchRecordPaced(b *testing.B, start func(b *testing.B, agent *inspector.Agent, path string) (stop func() error)) {
	sim := ecosystem.New(100_000, 1)
	agent := inspector.New(sim.World, inspector.Options{Addr: "127.0.0.1:0", Game: "paced", Schedule: sim.Schedule})
	if err := agent.Start(); err != nil {
		b.Fatal(err)
	}
	defer agent.Close()
	run := func(frames int) (ticksPerS, cores float64) {
		period := time.Second / 60
		cpu0, t0 := processCPU(), time.Now()
		next := t0
		for range frames {
			sim.Step()
			agent.Sync()
			if next = next.Add(period); time.Until(next) > 0 {
				time.Sleep(time.Until(next))
			} else {
				next = time.Now() // behind: the game runs at its own pace
			}
		}
		wall := time.Since(t0)
		return float64(frames) / wall.Seconds(), (processCPU() - cpu0).Seconds() / wall.Seconds()
	}
	baseTicks, baseCores := run(max(b.N/10, 30))
	path := filepath.Join(b.TempDir(), "paced.ecsrec")
	stop := start(b, agent, path)
	run(10) // the recording's first keyframe
	b.ResetTimer()
	ticks, cores := run(b.N)
	b.StopTimer()
	if err := stop(); err != nil {
		b.Fatal(err)
	}
	file, err := recording.OpenRecording(path)
	if err != nil {
		b.Fatal(err)
	}
	defer file.Close()
	if n := len(file.Frames); n > 1 {
		ran := file.Frames[n-1].Tick - file.Frames[0].Tick + 1
		b.ReportMetric(float64(n)/float64(ran), "kept")
		why := map[string]int{}
		for i := range file.Frames {
			if file.SkippedBefore(i) > 0 {
				w := file.GapWhy(i)
				why[w]++
			}
		}
		for w, k := range why {
			b.Logf("%d gaps: %s", k, w)
		}
	}
	b.ReportMetric(ticks, "ticks/s")
	b.ReportMetric(cores, "cores")
	b.ReportMetric(baseTicks, "baseline-ticks/s")
	b.ReportMetric(baseCores, "baseline-cores")
}

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
