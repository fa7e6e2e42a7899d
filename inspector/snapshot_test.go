package inspector

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

func TestWriteSnapshotAndPanicSnapshot(t *testing.T) {
	g := startGame(t, Options{})
	path := filepath.Join(t.TempDir(), "snap.ecsrec")
	var errc <-chan error
	g.on(func() { errc = g.agent.WriteSnapshot(path) })
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	m, err := rec.Message(0)
	if err != nil || len(rec.Frames) != 1 || !rec.Frames[0].Keyframe {
		t.Fatalf("snapshot file: %d frames, %v", len(rec.Frames), err)
	}
	st := recording.NewWorldState()
	if err := st.Apply(m.(*protocol.WorldFrame)); err != nil {
		t.Fatal(err)
	}
	if st.Entities() != 20 || rec.Header.Game != "test" {
		t.Errorf("snapshot holds %d entities of %q", st.Entities(), rec.Header.Game)
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
	rec2, err := recording.OpenRecording(crash)
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
	// Frames recorded, not time slept: a busy machine runs fewer frames.
	for deadline := time.Now().Add(10 * time.Second); r.Frames() < 12; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the recorder wrote %d frames in 10 s", r.Frames())
		}
	}
	g.on(func() { err = r.Stop() })
	if err != nil {
		t.Fatal(err)
	}
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if rec.Truncated || len(rec.Frames) < 10 || !rec.Frames[0].Keyframe || rec.Header.Hz != 100 {
		t.Fatalf("recorded %d frames (truncated %v, first a keyframe: %v, hz %v)", len(rec.Frames), rec.Truncated, rec.Frames[0].Keyframe, rec.Header.Hz)
	}
	replay := recording.NewReplay(rec)
	for i := range rec.Frames {
		st, err := replay.At(i)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if st.Entities() != 20 || st.Tick != rec.Frames[i].Tick {
			t.Fatalf("frame %d: %d entities at tick %d", i, st.Entities(), st.Tick)
		}
	}
}
