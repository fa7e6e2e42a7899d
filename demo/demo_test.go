package demo

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// TestAPanicLeavesAPostMortem: a system that panics ends Run with
// ErrPanicked; the world at the panic is in the post-mortem file and the
// recording is closed whole.
func TestAPanicLeavesAPostMortem(t *testing.T) {
	dir := t.TempDir()
	g, err := Start(Options{Entities: 500, Hz: 1000, Seed: 1, Agent: inspector.Options{Addr: "127.0.0.1:0"},
		Record: filepath.Join(dir, "run.ecsrec"), PostMortem: filepath.Join(dir, "crash.ecsrec")})
	if err != nil {
		t.Fatal(err)
	}
	g.Sim.Schedule.Add("exploder", func(w *ecs.World, _ *ecs.Commands) {
		if w.Frame() == 20 {
			panic("boom")
		}
	})
	err = g.Run(make(chan struct{}))
	if !errors.Is(err, ErrPanicked) || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "crash.ecsrec") {
		t.Fatalf("Run = %v", err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"crash.ecsrec", "run.ecsrec"} {
		rec, err := recording.OpenRecording(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rec.Truncated || len(rec.Frames) == 0 {
			t.Errorf("%s: %d frames, truncated %v", name, len(rec.Frames), rec.Truncated)
		}
		last := rec.Frames[len(rec.Frames)-1].Tick
		rec.Close()
		// The post-mortem is the world at the panic; the recording ends at it
		// or a little before, if its writer was behind and skipped frames.
		if name == "crash.ecsrec" && last != 20 || last > 20 {
			t.Errorf("%s ends at tick %d, want the panic's, 20", name, last)
		}
	}
}

func TestOptionsAreChecked(t *testing.T) {
	for _, o := range []Options{{Entities: 5, Hz: 60}, {Entities: 500, Hz: 0}, {Entities: 500, Hz: 60, Frames: -1}} {
		if _, err := Start(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
