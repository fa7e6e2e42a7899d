package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// TestMain lets the kill tests run this test binary as the demo itself.
func TestMain(m *testing.M) {
	if args := os.Getenv("ECSINSPECT_DEMO_ARGS"); args != "" {
		main2(strings.Fields(args))
		return
	}
	os.Exit(m.Run())
}

// main2 is main with its arguments given.
func main2(args []string) {
	os.Args = append([]string{"demo"}, args...)
	main()
}

// TestKilledRecordingIsExact starts the demo recording every frame and
// kills it, with SIGKILL and with SIGTERM, at a random moment once frames
// are on disk: the file opens, says what it recovered, and the state at its
// last tick is exactly the world a second run of the same seed holds at
// that tick.
func TestKilledRecordingIsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for seconds")
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.ecsrec")
			cmd, _ := recordingDemo(t, path, nil)
			time.Sleep(1500*time.Millisecond + time.Duration(rng.IntN(1500))*time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			rec, err := recording.OpenRecording(path)
			if err != nil {
				t.Fatalf("after %v: %v", sig, err)
			}
			defer rec.Close()
			if len(rec.Frames) == 0 {
				t.Fatalf("after %v: no frames recovered (%s)", sig, rec.Note)
			}
			if sig == syscall.SIGTERM && rec.Truncated {
				t.Errorf("SIGTERM should close the file whole: %s", rec.Note)
			}
			if sig == syscall.SIGKILL && rec.Note == "" {
				t.Errorf("a cut file should say what was recovered")
			}
			last := len(rec.Frames) - 1
			got, err := recording.NewReplay(rec).At(last)
			if err != nil {
				t.Fatalf("rebuilding the last recovered frame: %v", err)
			}
			want := replayTo(t, got.Tick)
			d := recording.Diff(want, got)
			if len(d.Spawned)+len(d.Despawned)+len(d.Changed)+len(d.Resources) != 0 || want.Entities() != got.Entities() {
				t.Fatalf("after %v, tick %d differs from a replay of the seed: %s", sig, got.Tick, strings.Join(diffSummary(d), "; "))
			}
			t.Logf("%v: %d frames recovered to tick %d (%s), exact", sig, len(rec.Frames), got.Tick, rec.Note)
		})
	}
}

// recordingDemo runs this test binary as the demo (1,500 animals at
// 120 Hz, seed 5) recording every frame to path; the channel yields where
// its agent listens.
func recordingDemo(t *testing.T, path string, stderr io.Writer) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ECSINSPECT_DEMO_ARGS=--listen 127.0.0.1:0 --entities 1500 --hz 120 --seed 5 --record "+path)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if _, a, ok := strings.Cut(lines.Text(), "agent on "); ok {
				addr <- a
			}
		}
	}()
	return cmd, addr
}

// replayTo runs the same seed to tick and returns its state, as a one-frame
// snapshot file rebuilds it.
func replayTo(t *testing.T, tick uint64) *recording.WorldState {
	t.Helper()
	sim := ecosystem.New(1500, 5)
	sim.Dt = float32(1.0 / 120)
	for sim.World.Frame() < tick {
		sim.Step()
	}
	a := inspector.New(sim.World, inspector.Options{Addr: "127.0.0.1:0"})
	path := filepath.Join(t.TempDir(), "replay.ecsrec")
	if err := <-a.WriteSnapshot(path); err != nil {
		t.Fatal(err)
	}
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	st, err := recording.NewReplay(rec).At(0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func diffSummary(d *recording.WorldDiff) []string {
	out := []string{fmt.Sprintf("%d spawned, %d despawned, %d changed", len(d.Spawned), len(d.Despawned), len(d.Changed))}
	for i, c := range d.Changed {
		if i == 3 {
			break
		}
		for _, cc := range c.Components {
			out = append(out, fmt.Sprintf("%v %s %+v", c.Entity, cc.Name, cc.Fields))
		}
	}
	for _, r := range d.Resources {
		out = append(out, "resource "+r.Name)
	}
	return out
}

// TestSIGTERMAfterRewindWhileRecording: the demo records to a file, a
// client rewinds it twice (each rewind ends the file: its ticks would go
// backwards), and SIGTERM then stops it cleanly: no panic from stopping a
// recording the rewind ended, exit status 0, and the file whole.
func TestSIGTERMAfterRewindWhileRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for seconds")
	}
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	var stderr strings.Builder
	cmd, addr := recordingDemo(t, path, &stderr)
	var o *client.OneShot
	var err error
	select {
	case a := <-addr:
		if o, err = client.Dial(a, ""); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the demo never said where its agent listens")
	}
	defer o.Close()
	for range 2 {
		// The in-memory recording holds a tick 30 back (a busy machine runs
		// the demo slowly: wait for the frames, not for a time).
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			s, err := o.Summary()
			if err != nil {
				t.Fatal(err)
			}
			if r := s.Agent.Rewind; r != nil && r.Frames >= 2 && r.From+30 <= s.Tick {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the in-memory recording never held a tick 30 back: %+v at tick %d", s.Agent.Rewind, s.Tick)
			}
		}
		if _, err := o.Do(func(id uint32) protocol.Message { return &protocol.Rewind{ID: id, Back: 30} }); err != nil {
			t.Fatalf("rewind: %v", err)
		}
		if _, err := o.Do(func(id uint32) protocol.Message { return &protocol.Resume{ID: id} }); err != nil {
			t.Fatalf("resume: %v", err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the demo after SIGTERM: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Fatalf("the demo panicked:\n%s", stderr.String())
	}
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if rec.Truncated || len(rec.Frames) == 0 {
		t.Fatalf("the file the rewind ended: %d frames, truncated %v (%s)", len(rec.Frames), rec.Truncated, rec.Note)
	}
}
