package main

import (
	"path/filepath"
	"testing"

	"github.com/ecsinspect/ecsinspect/demo"
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
	path := filepath.Join(b.TempDir(), "paced.ecsrec")
	testgame.BenchRecorded(b, path, func(o *demo.Options) (func(string), func() error) {
		o.Record = path
		return nil, nil
	})
}
