package testgame

import (
	"syscall"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// RunDemo runs the demo binary's own game (demo.Start, then its loop,
// Game.Run: a ticker at o.Hz, each tick a step and the agent's Sync) for
// o.Frames frames, with during run alongside (given the agent's address;
// nil: nothing), and reports the game's ticks a second and the process's
// CPU over the run, in cores.
func RunDemo(b testing.TB, o demo.Options, during func(addr string)) (ticksPerS, cores float64) {
	g, err := demo.Start(o)
	if err != nil {
		b.Fatal(err)
	}
	if during != nil {
		go during(g.Agent.Addr())
	}
	cpu0, t0 := processCPU(), time.Now()
	if err := g.Run(nil); err != nil {
		b.Fatal(err)
	}
	wall := time.Since(t0)
	ticksPerS, cores = float64(o.Frames)/wall.Seconds(), (processCPU()-cpu0).Seconds()/wall.Seconds()
	if err := g.Close(); err != nil {
		b.Fatal(err)
	}
	return ticksPerS, cores
}

// BenchRecorded is a recording benchmark of the demo binary's own game
// (100,000 animals at 60 Hz): the game unrecorded for a tenth of b.N
// frames (the baseline), then for b.N frames recorded as prepare sets it
// up (its options to change, what to run beside the game, and what to
// wait for after it), reporting what the recording at path kept and both
// runs' ticks a second and cores.
func BenchRecorded(b *testing.B, path string, prepare func(o *demo.Options) (during func(addr string), done func() error)) {
	o := demo.Options{Entities: 100_000, Hz: 60, Seed: 1, Agent: inspector.Options{Addr: "127.0.0.1:0"}}
	o.Frames = max(b.N/10, 60)
	baseTicks, baseCores := RunDemo(b, o, nil)
	o.Frames = b.N
	during, done := prepare(&o)
	b.ResetTimer()
	ticks, cores := RunDemo(b, o, during)
	b.StopTimer()
	if done != nil {
		if err := done(); err != nil {
			b.Fatal(err)
		}
	}
	ReportKept(b, path)
	b.ReportMetric(ticks, "ticks/s")
	b.ReportMetric(cores, "cores")
	b.ReportMetric(baseTicks, "baseline-ticks/s")
	b.ReportMetric(baseCores, "baseline-cores")
}

// ReportKept reports what the recording at path kept: its frames over the
// ticks they span (kept), and logs each reason it gives for its gaps.
func ReportKept(b *testing.B, path string) {
	file, err := recording.OpenRecording(path)
	if err != nil {
		b.Fatal(err)
	}
	defer file.Close()
	n := len(file.Frames)
	if n < 2 { // the first run of a benchmark, of one frame
		b.Logf("the recording holds %d frames: nothing to say what it kept", n)
		return
	}
	ran := file.Frames[n-1].Tick - file.Frames[0].Tick + 1
	b.ReportMetric(float64(n)/float64(ran), "kept")
	why := map[string]int{}
	for i := range file.Frames {
		if file.SkippedBefore(i) > 0 {
			why[file.GapWhy(i)]++
		}
	}
	for w, k := range why {
		b.Logf("%d gaps: %s", k, w)
	}
}

// processCPU is the CPU time the process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
