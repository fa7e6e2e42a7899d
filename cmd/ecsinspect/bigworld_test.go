package main

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// blob is a component of a megabyte of noise: a world of them codes to
// frames bigger than the protocol's default frame limit, as a world of a
// million entities does.
type blob struct{ Data [1 << 20]byte }

// TestRecordsAWorldOverTheDefaultFrameLimit: a world whose frames are over
// 16 MiB (a million entities' are 25-30) is recorded over a socket: the
// recorder reads frames as big as a world body may be.
func TestRecordsAWorldOverTheDefaultFrameLimit(t *testing.T) {
	testpace.SkipUnderRace(t, "coding 24 MiB of noise a frame")
	w := ecs.NewWorld()
	r := rand.New(rand.NewPCG(1, 2))
	blobs := ecs.NewMap[blob](w)
	for range 24 {
		var b blob
		for i := range b.Data {
			b.Data[i] = byte(r.Uint32())
		}
		blobs.Spawn(b)
	}
	agent := inspector.New(w, inspector.Options{Addr: "127.0.0.1:0", Game: "big"})
	must(t, agent.Start())
	t.Cleanup(func() { agent.Close() })
	testgame.Loop(t, 20*testpace.Frame(), func() { _ = w.Tick(); agent.Sync() })
	path := filepath.Join(t.TempDir(), "big.ecsrec")
	if code, out, errs := cli("record", agent.Addr(), "-o", path, "--frames", "2"); code != 0 {
		t.Fatalf("record: %d %s %s", code, out, errs)
	}
	rec, err := recording.OpenFrames(path)
	must(t, err)
	defer rec.Close()
	if len(rec.Frames) != 2 || rec.Frames[0].Size <= protocol.DefaultMaxFrame {
		t.Fatalf("the file holds %d frames, the first of %d bytes", len(rec.Frames), rec.Frames[0].Size)
	}
}
