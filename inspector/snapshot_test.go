package inspector

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestWriteSnapshotAndPanicSnapshot(t *testing.T) {
	g := startGame(t, Options{})
	path := filepath.Join(t.TempDir(), "snap.ecsrec")
	var errc <-chan error
	g.on(func() { errc = g.agent.WriteSnapshot(path) })
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	rec, err := protocol.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	m, err := rec.Message(0)
	if err != nil || len(rec.Frames) != 1 || !rec.Frames[0].Keyframe {
		t.Fatalf("snapshot file: %d frames, %v", len(rec.Frames), err)
	}
	if s := m.(*protocol.Snapshot); s.Stats.Alive != 20 || s.Game != "test" {
		t.Errorf("snapshot = %+v", s.Stats)
	}

	// A game of its own, run on this goroutine: it panics mid-frame.
	w := g.w
	g.close()
	agent := New(w, Options{Game: "crashy"})
	crash := filepath.Join(t.TempDir(), "crash.ecsrec")
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("re-panicked with %v", r)
			}
		}()
		defer agent.PanicSnapshot(crash)
		panic("boom")
	}()
	rec2, err := protocol.OpenRecording(crash)
	if err != nil {
		t.Fatalf("post-mortem snapshot: %v", err)
	}
	defer rec2.Close()
	if rec2.Header.Game != "crashy" || len(rec2.Frames) != 1 {
		t.Errorf("post-mortem: %+v", rec2.Header)
	}
}

func TestRecordTheRun(t *testing.T) {
	g := startGame(t, Options{})
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	var r *Recorder
	var err error
	g.on(func() { r, err = g.agent.Record(path, 100) })
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	g.on(func() { err = r.Stop() })
	if err != nil {
		t.Fatal(err)
	}
	rec, err := protocol.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if rec.Truncated || len(rec.Frames) < 10 {
		t.Fatalf("recorded %d frames (truncated %v)", len(rec.Frames), rec.Truncated)
	}
	first, _ := rec.Message(0)
	if _, ok := first.(*protocol.Snapshot); !ok {
		t.Errorf("first frame is %T, want the snapshot", first)
	}
	var base *protocol.Summary
	for i := 1; i < len(rec.Frames); i++ {
		m, err := rec.Message(i)
		if err != nil {
			t.Fatal(err)
		}
		s := m.(*protocol.Summary)
		if base, err = protocol.ApplySummary(base, s); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if base.Entities != 20 || base.Tick != rec.Frames[i].Tick {
			t.Fatalf("frame %d: %d entities at tick %d", i, base.Entities, base.Tick)
		}
	}
}
