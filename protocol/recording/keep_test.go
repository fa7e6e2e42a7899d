package recording

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestFlightRecordingKeepsTheLast: a flight recording bounded in bytes
// holds at most what it keeps and one segment more, whatever the run's
// length; its directory opens as one recording whose ticks run on to the
// newest frame, from a keyframe; cut without a Close (a kill -9), it
// opens up to its last whole frame.
func TestFlightRecordingKeepsTheLast(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "flight.ecsrec")
	keep := Keep{Bytes: 2 << 20}
	w, err := CreateKept(dir, RecordingHeader{Game: "test"}, keep)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	enc := NewWorldEncoder()
	var last uint64
	for tick := uint64(1); tick <= 600; tick++ {
		full := tick%10 == 1 // a keyframe every 10 frames
		f, err := enc.Encode(leanInput(tick, 5_000, full, !full, false, rng))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteWorld(f); err != nil {
			t.Fatal(err)
		}
		last = tick
	}
	if err := w.Flush(); err != nil { // no Close: the process was killed
		t.Fatal(err)
	}
	var disk int64
	segs, _ := filepath.Glob(filepath.Join(dir, "*.ecsrec"))
	for _, s := range segs {
		st, err := os.Stat(s)
		if err != nil {
			t.Fatal(err)
		}
		disk += st.Size()
	}
	if disk > keep.Bytes+keep.Bytes/keepSegments+64<<10 || disk != w.Bytes() {
		t.Fatalf("%d segments hold %d bytes on disk (writer says %d), keeping %s", len(segs), disk, w.Bytes(), keep)
	}
	if disk < keep.Bytes-keep.Bytes/keepSegments {
		t.Fatalf("only %s kept of %s", protocol.ByteSize(disk), keep)
	}
	rec, err := OpenFrames(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if !rec.Frames[0].Keyframe || rec.Frames[len(rec.Frames)-1].Tick != last || rec.Frames[0].Tick <= 1 {
		t.Fatalf("the flight recording holds ticks %d-%d (first a keyframe: %v), want the last ones to %d", rec.Frames[0].Tick, rec.Frames[len(rec.Frames)-1].Tick, rec.Frames[0].Keyframe, last)
	}
	for i := 1; i < len(rec.Frames); i++ {
		if rec.Frames[i].Tick != rec.Frames[i-1].Tick+1 {
			t.Fatalf("tick %d follows tick %d", rec.Frames[i].Tick, rec.Frames[i-1].Tick)
		}
	}
	replay := NewReplay(rec)
	for _, i := range []int{0, len(rec.Frames) / 2, len(rec.Frames) - 1} {
		st, err := replay.At(i)
		if err != nil || st.Tick != rec.Frames[i].Tick || st.Entities() != 5_000 {
			t.Fatalf("frame %d: %v (tick %d, %d entities)", i, err, st.Tick, st.Entities())
		}
	}
}

// TestParseKeep: --keep takes a duration or a size, and says what it
// wants otherwise.
func TestParseKeep(t *testing.T) {
	for in, want := range map[string]Keep{"10m": {Duration: 600e9}, "2GB": {Bytes: 2e9}, "64MiB": {Bytes: 64 << 20}, "1.5GB": {Bytes: 1.5e9}} {
		if got, err := ParseKeep(in); err != nil || got != want {
			t.Errorf("ParseKeep(%q) = %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "forever", "10", "1KB", "-2GB", "10ms"} {
		if _, err := ParseKeep(bad); err == nil {
			t.Errorf("ParseKeep(%q) was taken", bad)
		}
	}
}

// TestFlightRecordingFromOutside: a directory a reader is handed may hold
// anything: a segment that is not a recording is left out, segments whose
// ticks go back are an error naming the segment, thousands of files are
// refused before one is opened, and an empty one says what it wants.
func TestFlightRecordingFromOutside(t *testing.T) {
	good := func(dir, name string, from uint64) {
		w, err := CreateRecording(filepath.Join(dir, name), RecordingHeader{Game: "test"})
		if err != nil {
			t.Fatal(err)
		}
		enc := NewWorldEncoder()
		rng := rand.New(rand.NewPCG(3, 4))
		for tick := from; tick < from+3; tick++ {
			f, err := enc.Encode(leanInput(tick, 10, tick == from, false, false, rng))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteWorld(f); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	good(dir, "000002.ecsrec", 10)
	if err := os.WriteFile(filepath.Join(dir, "000001.ecsrec"), []byte("not a recording"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := OpenFrames(dir)
	if err != nil || len(rec.Frames) != 3 || rec.Frames[0].Tick != 10 {
		t.Fatalf("a directory with a bad segment and a good one: %v", err)
	}
	rec.Close()
	good(dir, "000003.ecsrec", 5) // ticks going back
	if _, err := OpenFrames(dir); err == nil || !strings.Contains(err.Error(), "000003.ecsrec starts at tick 5") {
		t.Fatalf("segments going back: %v", err)
	}
	many := t.TempDir()
	for i := range maxKeptSegments + 1 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("%06d.ecsrec", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := OpenFrames(many); err == nil || !strings.Contains(err.Error(), "is not one") {
		t.Fatalf("%d segments: %v", maxKeptSegments+1, err)
	}
	if _, err := OpenFrames(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no recording segments") {
		t.Fatalf("an empty directory: %v", err)
	}
}

// TestFlightRecordingKeepsTheLastDuration: a flight recording bounded in
// time holds at least the last Duration of the run and at most a segment
// more (a segment ends at the first keyframe past its eighth: up to a
// keyframe's gap, 2 s here, and a frame longer), wherever the run stops (the game's clock here is the test's: a
// frame a second, a keyframe every other; runs that stop at each second
// of a segment's span).
func TestFlightRecordingKeepsTheLastDuration(t *testing.T) {
	keep := Keep{Duration: 40 * time.Second}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for last := uint64(100); last <= 107; last++ { // a segment spans 5 or 6 s: every place in it
		dir := filepath.Join(t.TempDir(), "flight.ecsrec")
		now := time.Unix(1_700_000_000, 0)
		w, err := createKept(dir, RecordingHeader{Game: "test"}, keep, func() time.Time { return now })
		must(err)
		rng := rand.New(rand.NewPCG(1, 2))
		enc := NewWorldEncoder()
		for tick := uint64(1); tick <= last; tick++ {
			full := tick%2 == 1
			f, err := enc.Encode(leanInput(tick, 10, full, !full, false, rng))
			must(err)
			must(w.WriteWorld(f))
			now = now.Add(time.Second)
		}
		must(w.Close())
		rec, err := OpenFrames(dir)
		must(err)
		first := rec.Frames[0].Tick
		must(rec.Close())
		held := time.Duration(last-first+1) * time.Second
		if held < keep.Duration || held > keep.Duration+keep.Duration/keepSegments+3*time.Second {
			t.Fatalf("a run of %d s: the flight recording holds ticks %d-%d (%v), keeping %v", last, first, last, held, keep.Duration)
		}
	}
}
