// Package testgame runs the demo ecosystem with an inspector agent for the
// tests of the tools that look at it (the UI, the command line): a game
// loop on its own goroutine, a way to run code where the game does, and a
// short recording. Tests only.
//
//	addr, agent, onGame := testgame.Live(t, 1000, 5)
//	path := testgame.Record(t)
package testgame

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/testpace"
)

// Loop runs frame every period on its own goroutine, as a game's main loop
// would, until the test ends. The function it returns runs fn on that
// goroutine between frames and waits for it, for tests that must touch the
// world where the game does.
func Loop(t testing.TB, period time.Duration, frame func()) (onGame func(fn func())) {
	stop, done, do := make(chan struct{}), make(chan struct{}), make(chan func())
	go func() {
		defer close(done)
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case fn := <-do:
				fn()
			case <-tk.C:
				frame()
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return func(fn func()) {
		ran := make(chan struct{})
		do <- func() { fn(); close(ran) }
		<-ran
	}
}

// Live runs the demo world of n animals from seed with an agent on a free
// loopback port, a frame every testpace.Frame() (2 ms). It returns the
// agent's address, the agent, and a function that runs code on the game
// goroutine.
func Live(t testing.TB, n int, seed uint64) (string, *inspector.Agent, func(func())) {
	_, addr, agent, on := LiveSim(t, n, seed)
	return addr, agent, on
}

// LiveSim is Live with the simulation too, to change it (on the game's
// goroutine, through the function returned).
func LiveSim(t testing.TB, n int, seed uint64) (*ecosystem.Sim, string, *inspector.Agent, func(func())) {
	sim := ecosystem.New(n, seed)
	agent := inspector.New(sim.World, inspector.Options{Addr: "127.0.0.1:0", Game: "ecosystem", Schedule: sim.Schedule})
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	onGame := Loop(t, testpace.Frame(), func() { sim.Step(); agent.Sync() })
	// Before the loop stops (cleanups run last first): a pause a script
	// held outlives its client, and only the agent's close ends it.
	t.Cleanup(func() { agent.Close() })
	return sim, agent.Addr(), agent, onGame
}

// Record records a live demo for a moment and returns the file.
func Record(t testing.TB) string {
	_, agent, on := Live(t, 1000, 5)
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	var rec *inspector.Recorder
	on(func() {
		var err error
		if rec, err = agent.Record(path, 50); err != nil {
			t.Fatal(err)
		}
	})
	// Keyframes in the middle, whatever the game's pace: review's { } and
	// seeks have one to go to. Frames are counted, not time slept: a busy
	// machine runs fewer.
	for _, upTo := range []int{6, 12} {
		framesWritten(t, rec, upTo)
		on(rec.Keyframe)
	}
	framesWritten(t, rec, 16)
	on(func() {
		if err := rec.Stop(); err != nil {
			t.Fatal(err)
		}
	})
	return path
}

// framesWritten waits until rec has written n frames; it fails the test
// after 20 s.
func framesWritten(t testing.TB, rec *inspector.Recorder, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); rec.Frames() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the recorder wrote %d frames in 20 s, want %d", rec.Frames(), n)
		}
	}
}
