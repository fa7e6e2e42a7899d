package inspector

import (
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// WriteSnapshot saves the whole world to path as a one-frame .ecsrec
// recording. Call it on the game goroutine: it copies the world there (at
// memory speed) and converts, encodes and writes it on another goroutine.
// The returned channel yields the outcome once the file is written.
func (a *Agent) WriteSnapshot(path string) <-chan error {
	done := make(chan error, 1)
	stream := record.NewStream(a.w, a.summaryOf)
	job := stream.Capture()
	go func() {
		w, err := recording.CreateRecording(path, recording.RecordingHeader{Game: a.opts.Game})
		if err != nil {
			done <- err
			return
		}
		f, err := stream.Encode(job)
		stream.Cap.Release() // one frame: nothing comes to reuse its memory
		if err == nil {
			err = w.WriteWorld(f)
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	return done
}

// PanicSnapshot is for deferring in the game loop: if the game panics, it
// writes a post-mortem snapshot to path, waits for the file, closes every
// recording the agent runs (so they end at the crash, whole), then panics
// again with the same value.
//
//	defer agent.PanicSnapshot("crash.ecsrec")
//
// A panic in a system run by ecs.Schedule, parallel or not, reaches it: the
// schedule re-raises it on the goroutine that called Run, as an
// *ecs.SystemPanic naming the system, after the systems running beside it
// returned, so the copy races nothing.
func (a *Agent) PanicSnapshot(path string) {
	r := recover()
	if r == nil {
		return
	}
	if err := <-a.WriteSnapshot(path); err != nil {
		a.logf("post-mortem snapshot: %v", err)
	} else {
		a.logf("post-mortem snapshot of tick %d written to %s", a.w.Frame(), path)
	}
	for len(a.recorders) > 0 {
		if err := a.recorders[0].Stop(); err != nil {
			a.logf("closing a recording after the panic: %v", err)
		}
	}
	panic(r)
}
