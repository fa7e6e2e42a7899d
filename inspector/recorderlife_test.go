package inspector

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ecsclient "github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// TestRecorderLifetimesSurviveRewinds drives random sequences of file
// recordings, stops, rewinds and socket recordings through an agent, then
// stops everything as a game does at SIGTERM: no panic (a rewind ends a
// file recording once, a Stop after that only reports), every Stop
// succeeds, and every file opens with ticks that never go backwards.
func TestRecorderLifetimesSurviveRewinds(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			g := startGame(t, Options{RewindHz: 1000})
			c := dial(t, g, protocol.Hello{})
			dir := t.TempDir()
			var recs []*Recorder
			var files []string
			var sockets []*ecsclient.Recording
			var ops []string
			for step := range 14 {
				time.Sleep(time.Duration(5+rng.IntN(20)) * time.Millisecond)
				switch op := rng.IntN(5); op {
				case 0: // a file recording in the game
					g.on(func() {
						path := filepath.Join(dir, fmt.Sprintf("game-%d.ecsrec", step))
						r, err := g.agent.Record(path, 0)
						if err != nil {
							t.Fatal(err)
						}
						recs, files = append(recs, r), append(files, path)
					})
					ops = append(ops, "record")
				case 1: // stop one, perhaps one a rewind ended, perhaps twice
					if len(recs) > 0 {
						r := recs[rng.IntN(len(recs))]
						var err error
						g.on(func() { err = r.Stop() })
						if err != nil {
							t.Fatalf("after %v: Stop: %v", ops, err)
						}
						ops = append(ops, "stop")
					}
				case 2: // a rewind a few ticks back
					var now uint64
					g.on(func() { now = g.w.Frame() })
					r := c.reply(&protocol.Rewind{Tick: now - min(now, uint64(1+rng.IntN(5)))})
					if !r.OK && r.Code != protocol.ErrNotFound && r.Code != protocol.ErrState {
						t.Fatalf("after %v: rewind: %s %s", ops, r.Code, r.Message)
					}
					wantOK(t, "resume", c.reply(&protocol.Resume{}))
					ops = append(ops, "rewind")
				case 3: // a recording over the socket
					r, err := ecsclient.StartRecording(ecsclient.GameAt(g.agent.Addr(), ""), filepath.Join(dir, fmt.Sprintf("socket-%d.ecsrec", step)), 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					sockets = append(sockets, r)
					ops = append(ops, "socket")
				case 4:
					ops = append(ops, "wait")
				}
			}
			time.Sleep(20 * time.Millisecond)
			// SIGTERM: the game stops every recording it started, then the agent.
			for _, r := range recs {
				var err error
				g.on(func() { err = r.Stop() })
				if err != nil {
					t.Fatalf("after %v: Stop at the end: %v", ops, err)
				}
			}
			for _, r := range sockets {
				if err := r.Stop(); err != nil {
					t.Fatalf("after %v: socket recording: %v", ops, err)
				}
			}
			g.close()
			for _, r := range sockets {
				files = append(files, r.Files()...)
			}
			for _, path := range files {
				rec, err := recording.OpenRecording(path)
				if err != nil {
					t.Fatalf("after %v: %s: %v", ops, path, err)
				}
				for i := 1; i < len(rec.Frames); i++ {
					if rec.Frames[i].Tick < rec.Frames[i-1].Tick {
						t.Fatalf("after %v: %s: frame %d is tick %d after tick %d", ops, filepath.Base(path), i, rec.Frames[i].Tick, rec.Frames[i-1].Tick)
					}
				}
				if rec.Truncated {
					t.Fatalf("after %v: %s was not closed: %s", ops, path, rec.Note)
				}
				for i := range rec.Frames {
					m, err := rec.Message(i)
					if err != nil {
						t.Fatal(err)
					}
					f, ok := m.(*protocol.WorldFrame)
					if !ok {
						t.Fatalf("%s: frame %d is a %T", filepath.Base(path), i, m)
					}
					if f.Sub != 0 {
						t.Fatalf("%s: frame %d carries sub %d: a recording's world frames carry 0", filepath.Base(path), i, f.Sub)
					}
				}
				rec.Close()
			}
			if !strings.Contains(strings.Join(ops, " "), "rewind") {
				t.Logf("no rewind in %v", ops)
			}
		})
	}
}
