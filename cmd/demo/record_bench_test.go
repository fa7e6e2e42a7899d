package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// BenchmarkRecordSocket: the 100,000-animal demo recorded every frame over
// a socket (client.StartRecording at hz 0, what `ecsinspect record` does),
// its frame against the same demo with an idle agent, interleaved with the
// order alternating; kept, the frames the file holds over the frames the
// game ran while it recorded (the rest are gaps the file marks); and the
// share of the frames held that are keyframes.
func BenchmarkRecordSocket(b *testing.B) {
	recorded, plain, agentR, agentP := demoPair(b, "recorded", "plain")
	path := filepath.Join(b.TempDir(), "socket.ecsrec")
	rec, err := client.StartRecording(client.GameAt(agentR.Addr(), ""), path, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	frame := func(step func(), sync func()) func() time.Duration {
		return func() time.Duration {
			start := time.Now()
			step()
			sync()
			return time.Since(start)
		}
	}
	subject := frame(recorded.Step, agentR.Sync)
	baseline := frame(plain.Step, agentP.Sync)
	for range 3 {
		subject()
		baseline()
	}
	if recorded.World.Len() != plain.World.Len() {
		b.Fatalf("the worlds differ before the loop: %d and %d entities", recorded.World.Len(), plain.World.Len())
	}
	framesPaired(b, subject, baseline)
	for range 20 { // the frames on their way reach the file
		subject()
	}
	if err := rec.Stop(); err != nil {
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
		keys := 0
		for _, f := range file.Frames {
			if f.Keyframe {
				keys++
			}
		}
		b.ReportMetric(float64(keys)/float64(n), "keyframe-share")
	}
}
