package main

import (
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ecsinspect/ecsinspect/demo"
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
	path := filepath.Join(b.TempDir(), "socket.ecsrec")
	testgame.BenchRecorded(b, path, func(o *demo.Options) (func(string), func() error) {
		frames := o.Frames
		o.Frames += 180
		recorded := make(chan error, 1)
		return func(addr string) {
			recorded <- runRecord([]string{addr, "-o", path, "--frames", strconv.Itoa(frames)}, io.Discard, nil)
		}, func() error { return <-recorded }
	})
}
