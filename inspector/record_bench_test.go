package inspector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/internal/benchpair"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// BenchmarkRecordFrame is the game goroutine's cost of recording one frame
// of the demo world: two worlds from the same seed step side by side, one
// with a recorder taking every frame, one without; the order alternates
// each iteration. x-baseline is recorded time over unrecorded time.
func BenchmarkRecordFrame(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run("entities="+strconv.Itoa(n), func(b *testing.B) {
			rec, base := ecosystem.New(n, 1), ecosystem.New(n, 1)
			ra := New(rec.World, Options{Addr: "127.0.0.1:0", Schedule: rec.Schedule})
			ba := New(base.World, Options{Addr: "127.0.0.1:0", Schedule: base.Schedule})
			r, err := ra.Record(filepath.Join(b.TempDir(), "bench.ecsrec"), 0)
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := r.Stop(); err != nil {
					b.Error(err)
				}
			}()
			stepSim(rec, ra)
			stepSim(base, ba)
			if rec.World.Len() != base.World.Len() {
				b.Fatalf("the worlds differ before the loop: %d and %d entities", rec.World.Len(), base.World.Len())
			}
			var tRec, tBase time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					tRec += stepSim(rec, ra)
					tBase += stepSim(base, ba)
				} else {
					tBase += stepSim(base, ba)
					tRec += stepSim(rec, ra)
				}
			}
			b.ReportMetric(float64(tRec)/float64(max(tBase, 1)), "x-baseline")
			b.ReportMetric(float64(tRec.Nanoseconds())/float64(b.N), "ns/frame")
			b.ReportMetric(float64(tRec.Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
		})
	}
}

// BenchmarkRecordBytes records 600 frames of the 10k demo, every frame,
// and reports the bytes the file takes (keyframes, handles, resources,
// events, journal, framing and index included) per component value
// written in those frames.
func BenchmarkRecordBytes(b *testing.B) {
	for b.Loop() {
		sim := ecosystem.New(10_000, 1)
		a := New(sim.World, Options{Addr: "127.0.0.1:0", Schedule: sim.Schedule})
		s := record.NewStream(a.w, a.summaryOf)
		path := filepath.Join(b.TempDir(), "bytes.ecsrec")
		w, err := recording.CreateRecording(path, recording.RecordingHeader{Game: "ecosystem"})
		if err != nil {
			b.Fatal(err)
		}
		values, keys := 0, 0
		leaves := map[uint16]int{}
		for _, c := range a.componentSchemas() {
			leaves[c.ID] = countLeaves(c.Fields)
		}
		for range 600 {
			sim.Step()
			job := s.Capture()
			for _, t := range job.Capture().Tables {
				for j, c := range t.Components {
					values += len(t.Columns[j].Changed) * leaves[uint16(c)]
				}
			}
			f, err := s.Encode(job)
			if err != nil {
				b.Fatal(err)
			}
			if f.Full {
				keys++
			}
			if err := w.WriteWorld(f); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.Size())/float64(values), "bytes/value")
		b.ReportMetric(float64(st.Size())/600, "bytes/frame")
		b.ReportMetric(float64(keys), "keyframes")
	}
}

func countLeaves(fs []protocol.FieldSchema) int {
	n := 0
	for _, f := range fs {
		switch {
		case f.Kind == "struct":
			n += countLeaves(f.Fields)
		case f.Kind == "array" && f.Elem != nil:
			n += f.Len * max(countLeaves([]protocol.FieldSchema{*f.Elem}), 1)
		default:
			n++
		}
	}
	return n
}

// BenchmarkSeek opens a recording of the 100k demo (a keyframe and the
// deltas the policy allows after it, every frame recorded), and one of the
// 10k demo's first 6 s (several keyframes), and rebuilds the state at a
// random recorded tick: what a person jumping to a tick waits for.
// Seeking reads the keyframe at or before the tick and the deltas after
// it, so the cost does not grow with the recording's length.
func BenchmarkSeek(b *testing.B) {
	for _, c := range []struct{ entities, frames int }{{100_000, 24}, {10_000, 360}} {
		b.Run(fmt.Sprintf("entities=%d", c.entities), func(b *testing.B) { benchSeek(b, c.entities, c.frames) })
	}
}

// benchSeek is BenchmarkSeek on a recording of frames frames of the
// demo of entities animals.
func benchSeek(b *testing.B, entities, frames int) {
	sim := ecosystem.New(entities, 1)
	a := New(sim.World, Options{Addr: "127.0.0.1:0", Schedule: sim.Schedule})
	path := filepath.Join(b.TempDir(), "seek.ecsrec")
	r, err := a.Record(path, 0)
	if err != nil {
		b.Fatal(err)
	}
	for range frames {
		sim.Step()
		a.Sync()
	}
	if err := r.Stop(); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		rec, err := recording.OpenRecording(path)
		if err != nil {
			b.Fatal(err)
		}
		i := rng.IntN(len(rec.Frames))
		s, err := recording.NewReplay(rec).At(i)
		if err != nil || s.Entities() == 0 {
			b.Fatalf("frame %d: %v", i, err)
		}
		rec.Close()
	}
	b.ReportMetric(float64(st.Size()), "file-bytes") // after the loop: ResetTimer drops what was reported before it
}

// BenchmarkRecordGrid records every frame of the small game (4,000 movers
// writing their handles into a 128x128 grid resource each frame) into a
// file, beside the same game with its agent idle, interleaved:
// x-baseline is the recorded game's frame time over the other's,
// bytes/frame and kept (frames in the file over frames run) what the
// file holds; the grid's changed cells travel as numbers (WorldBody
// ResourcesChanged), not the grid.
func BenchmarkRecordGrid(b *testing.B) {
	subj, base := newSmallGame(b, true), newSmallGame(b, true)
	path := filepath.Join(b.TempDir(), "grid.ecsrec")
	r, err := subj.a.Record(path, 0)
	if err != nil {
		b.Fatal(err)
	}
	subj.frame()
	base.frame()
	if subj.w.Len() != base.w.Len() {
		b.Fatalf("the games differ before the loop: %d and %d entities", subj.w.Len(), base.w.Len())
	}
	benchpair.Run(b, 1, "ns/frame", func() { subj.frame() }, func() { base.frame() })
	if err := r.Stop(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	run := b.N + 1
	b.ReportMetric(float64(st.Size())/float64(max(r.Frames(), 1)), "bytes/frame")
	b.ReportMetric(float64(r.Frames())/float64(run+1), "kept")
}
