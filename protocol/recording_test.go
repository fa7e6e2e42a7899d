package protocol

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeSample records n frames, a keyframe every 10 ticks, into memory.
func writeSample(t testing.TB, n int) []byte {
	var buf bytes.Buffer
	w, err := NewRecordWriter(&buf, "grazers", time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		tick := uint64(100 + 2*i)
		var m Message = &Summary{Sub: 1, Tick: tick, Full: i%10 == 0, Entities: i}
		if err := w.Write(tick, time.Unix(1700000000, int64(i)), i%10 == 0, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRecordingRoundTripAndSeek(t *testing.T) {
	b := writeSample(t, 35)
	rec, err := ReadRecording(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Truncated || len(rec.Frames) != 35 || rec.Header.Game != "grazers" || !rec.Header.Start.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("recording = %+v", rec)
	}
	for i := range rec.Frames {
		m, err := rec.Message(i)
		if err != nil {
			t.Fatal(err)
		}
		if s := m.(*Summary); s.Entities != i || s.Tick != rec.Frames[i].Tick {
			t.Fatalf("frame %d = %+v", i, s)
		}
	}
	if i := rec.Seek(131); rec.Frames[i].Tick != 130 {
		t.Errorf("Seek(131) = frame with tick %d", rec.Frames[i].Tick)
	}
	if i := rec.Seek(0); i != 0 {
		t.Errorf("Seek(0) = %d", i)
	}
	if i := rec.Seek(1 << 40); i != 34 {
		t.Errorf("Seek(far) = %d", i)
	}
	if k := rec.KeyframeAt(rec.Seek(131)); k != 10 {
		t.Errorf("KeyframeAt = %d, want 10", k)
	}
}

func TestTruncatedRecordingOpensUpToLastWholeFrame(t *testing.T) {
	b := writeSample(t, 12)
	full, _ := ReadRecording(bytes.NewReader(b), int64(len(b)))
	indexAt := full.Frames[11].Offset + full.Frames[11].Size
	for cut := full.Frames[0].Offset; cut < int64(len(b)); cut++ {
		rec, err := ReadRecording(bytes.NewReader(b[:cut]), cut)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		want := 0
		for _, f := range full.Frames {
			if f.Offset+f.Size <= cut {
				want++
			}
		}
		if len(rec.Frames) != want || !rec.Truncated || rec.Note == "" {
			t.Fatalf("cut at %d (index at %d): %d frames, want %d; %q", cut, indexAt, len(rec.Frames), want, rec.Note)
		}
		for i := range rec.Frames {
			if _, err := rec.Message(i); err != nil {
				t.Fatalf("cut at %d, frame %d: %v", cut, i, err)
			}
		}
	}
}

func TestRecordingBadHeaders(t *testing.T) {
	good := writeSample(t, 1)
	bad := map[string][]byte{
		"not a recording": []byte("hello world, not a recording at all"),
		"empty":           {},
		"future version":  append(append([]byte("ECSREC\x00"), 9), good[8:]...),
		"header cut":      good[:10],
	}
	wants := map[string]string{"not a recording": "bad magic", "empty": "bad magic", "future version": "version 9", "header cut": "cut short"}
	for name, b := range bad {
		_, err := ReadRecording(bytes.NewReader(b), int64(len(b)))
		if err == nil || !strings.Contains(err.Error(), wants[name]) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRecordingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	w, err := CreateRecording(path, "g")
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Write(5, time.Now(), true, &Snapshot{Tick: 5, Game: "g"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	m, err := rec.Message(0)
	if err != nil || m.(*Snapshot).Tick != 5 {
		t.Errorf("snapshot = %+v, %v", m, err)
	}
	if _, err := OpenRecording(filepath.Join(t.TempDir(), "missing.ecsrec")); err == nil {
		t.Error("missing file opened")
	}
}

func FuzzOpenRecording(f *testing.F) {
	f.Add(writeSample(f, 3))
	b := writeSample(f, 3)
	f.Add(b[:len(b)-20])
	f.Add([]byte("ECSREC\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := ReadRecording(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for i := range rec.Frames {
			if rec.Frames[i].Offset+rec.Frames[i].Size > int64(len(b)) {
				t.Fatalf("frame %d runs past the file", i)
			}
			_, _ = rec.Message(i)
		}
	})
}
