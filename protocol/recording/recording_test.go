package recording

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// writeSample records n frames, a keyframe every 10 ticks, into memory.
func writeSample(t testing.TB, n int) []byte {
	var buf bytes.Buffer
	w, err := NewRecordWriter(&buf, RecordingHeader{Game: "grazers", Start: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		tick := uint64(100 + 2*i)
		var m protocol.Message = &protocol.Summary{Sub: 1, Tick: tick, Full: i%10 == 0, Entities: i}
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
		if s := m.(*protocol.Summary); s.Entities != i || s.Tick != rec.Frames[i].Tick {
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
		"old version":     append(append([]byte("ECSREC\x00"), 1), good[8:]...),
	}
	wants := map[string]string{"not a recording": "bad magic", "empty": "bad magic", "future version": "version 9", "header cut": "cut short",
		"old version": "from an older ecsinspect (it held summaries, not every entity); this reader knows versions 2 to 4: record the game again"}
	for name, b := range bad {
		_, err := ReadRecording(bytes.NewReader(b), int64(len(b)))
		if err == nil || !strings.Contains(err.Error(), wants[name]) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if good[7] != 4 {
		t.Fatalf("a recording is written as version %d, want 4", good[7])
	}
	for _, v := range []byte{2, 3} { // the same without packed columns, without resource changes
		old := append(append([]byte("ECSREC\x00"), v), good[8:]...)
		if rec, err := ReadRecording(bytes.NewReader(old), int64(len(old))); err != nil || len(rec.Frames) != 1 {
			t.Errorf("a version %d recording: %v", v, err)
		}
	}
}

func TestRecordingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	w, err := CreateRecording(path, RecordingHeader{Game: "g"})
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Write(5, time.Now(), true, &protocol.Snapshot{Tick: 5, Game: "g"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	m, err := rec.Message(0)
	if err != nil || m.(*protocol.Snapshot).Tick != 5 {
		t.Errorf("snapshot = %+v, %v", m, err)
	}
	// A missing file is named once, with why, as a bad one is.
	missing := filepath.Join(t.TempDir(), "missing.ecsrec")
	_, err = OpenRecording(missing)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || strings.Count(err.Error(), missing) != 1 || strings.Count(err.Error(), "open") != 0 {
		t.Errorf("a missing file: %v", err)
	}
}

func FuzzOpenRecording(f *testing.F) {
	f.Add(writeSample(f, 3))
	b := writeSample(f, 3)
	f.Add(b[:len(b)-20])
	f.Add([]byte("ECSREC\x00\x01"))
	f.Add(recordingOf(f, encodeAll(f)...)) // world frames: tables, links, a resource's changed numbers
	for _, c := range craftedFiles(f) {    // the shapes attacks found: overflowing schemas, array and table bombs, unsized zstd
		if c.name != "growing-deltas" { // 40 frames of a million rows: too slow a seed to mutate
			f.Add(c.b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := ReadRecording(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		_ = readWhole(b) // an error is a fine answer; a panic or a runaway allocation is not
		for i := range rec.Frames {
			if rec.Frames[i].Offset+rec.Frames[i].Size > int64(len(b)) {
				t.Fatalf("frame %d runs past the file", i)
			}
			m, err := rec.Message(i)
			if err != nil {
				continue // a clear error is a fine answer to bad bytes
			}
			// What decodes holds together: a reader may index it freely.
			switch m := m.(type) {
			case *protocol.Snapshot:
				for ti := range m.Tables {
					if err := m.Tables[ti].Check(); err != nil {
						t.Fatalf("frame %d decoded a misshapen table: %v", i, err)
					}
				}
			case *protocol.Page:
				for _, r := range m.Rows {
					if len(r.Values) != len(m.Columns) {
						t.Fatalf("frame %d decoded a row of %d values for %d columns", i, len(r.Values), len(m.Columns))
					}
				}
			}
		}
	})
}

// TestMisshapenTablesAreRefused: a snapshot whose tables do not hold
// together (fewer values than entities, more columns than components) is
// an error when read, so no reader indexes past a column.
func TestMisshapenTablesAreRefused(t *testing.T) {
	good := protocol.Table{Components: []uint16{1}, Entities: []protocol.EntityID{1, 2}, Columns: [][]protocol.Value{{protocol.IntValue(1), protocol.IntValue(2)}}}
	short := protocol.Table{Components: []uint16{1}, Entities: []protocol.EntityID{1, 2}, Columns: [][]protocol.Value{{protocol.IntValue(1)}}}
	wide := protocol.Table{Components: []uint16{1}, Entities: []protocol.EntityID{1}, Columns: [][]protocol.Value{{protocol.IntValue(1)}, {protocol.IntValue(2)}}}
	for _, tc := range []struct {
		name string
		tb   protocol.Table
		ok   bool
	}{{"good", good, true}, {"short column", short, false}, {"more columns than components", wide, false}} {
		b, err := protocol.Encode(&protocol.Snapshot{Tick: 5, Tables: []protocol.Table{tc.tb}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = protocol.Decode(b)
		if (err == nil) != tc.ok {
			t.Errorf("%s: Decode error = %v", tc.name, err)
		}
	}
	b, err := protocol.Encode(&protocol.Page{Columns: []uint16{1, 2}, Rows: []protocol.Row{{Entity: 1, Values: []protocol.Value{protocol.IntValue(1)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Decode(b); err == nil {
		t.Error("a page row with fewer values than columns decoded")
	}
}

// TestBigRecordsAreRecovered: a recording never closed, holding a record
// over the wire's 16 MiB frame limit (a snapshot of a big world), is read
// back whole, frame by frame; and the writer has flushed its header before
// the first frame.
func TestBigRecordsAreRecovered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.ecsrec")
	w, err := CreateRecording(path, RecordingHeader{Game: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("header not on disk before the first frame: %v %v", fi, err)
	}
	vals := make([]protocol.Value, 1_200_000)
	ents := make([]protocol.EntityID, len(vals))
	for i := range vals {
		vals[i] = protocol.FloatValue(float64(i) + 0.5)
		ents[i] = protocol.MakeEntityID(uint32(i), 1)
	}
	snap := &protocol.Snapshot{Tick: 1, Tables: []protocol.Table{{Components: []uint16{0}, Entities: ents, Columns: [][]protocol.Value{vals}}}}
	if err := w.Write(1, time.Now(), true, snap); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(2, time.Now(), false, &protocol.Summary{Tick: 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil { // no Close: as if the process died here
		t.Fatal(err)
	}
	if w.Bytes() <= protocol.DefaultMaxFrame {
		t.Fatalf("the test record is only %d bytes", w.Bytes())
	}
	rec, err := OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if len(rec.Frames) != 2 {
		t.Fatalf("recovered %d frames (%s), want 2", len(rec.Frames), rec.Note)
	}
	m, err := rec.Message(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*protocol.Snapshot).Tables[0].Columns[0][1_199_999].Float(); got != 1_199_999.5 {
		t.Fatalf("last value = %v", got)
	}
}
