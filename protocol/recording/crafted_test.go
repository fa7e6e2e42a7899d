package recording

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/klauspost/compress/zstd"
)

// craftedFile is a hostile recording: small on disk, built to make a
// reader allocate or index past what it holds.
type craftedFile struct {
	name string
	b    []byte
}

// recordingOf writes frames as a recording.
func recordingOf(t testing.TB, frames ...*protocol.WorldFrame) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewRecordWriter(&buf, RecordingHeader{Game: "crafted", Start: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := w.Write(f.Tick, time.Unix(1700000000, 0), f.Full, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// openFrames writes frames as a recording and reads it back.
func openFrames(t testing.TB, frames ...*protocol.WorldFrame) *Recording {
	t.Helper()
	b := recordingOf(t, frames...)
	rec, err := ReadRecording(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// tinyWorldWith is the tiny world's keyframe with Pos's schema replaced.
func tinyWorldWith(t testing.TB, pos []protocol.FieldSchema) *protocol.WorldFrame {
	t.Helper()
	in := worldInputs()[0]
	sum := *in.Summary
	sum.Components = worldSchemas()
	sum.Components[0].Fields = pos
	in.Summary = &sum
	f, err := NewWorldEncoder().Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// sealed compresses a hand-made msgpack body into a frame.
func sealed(tick, seq uint64, full bool, raw []byte) *protocol.WorldFrame {
	return &protocol.WorldFrame{Tick: tick, Seq: seq, Full: full, Body: zstdEncoder().EncodeAll(raw, nil)}
}

// craftedFiles is the corpus: each shape an outside attack found.
func craftedFiles(t testing.TB) []craftedFile {
	t.Helper()
	var files []craftedFile
	// A schema whose field lies at 2^62 and is 2^62 bytes long: offset
	// plus size overflows.
	files = append(files, craftedFile{"schema-overflow", recordingOf(t, tinyWorldWith(t, []protocol.FieldSchema{
		{Name: "X", Kind: "float", Type: "float32", Offset: 1 << 62, Size: 1 << 62}}))})
	// An array of 2^40 zero-size elements: a list of 2^40 values.
	files = append(files, craftedFile{"array-bomb", recordingOf(t, tinyWorldWith(t, []protocol.FieldSchema{
		{Name: "A", Kind: "array", Type: "[N]struct{}", Size: 8, Len: 1 << 40, Elem: &protocol.FieldSchema{Kind: "int", Type: "int", Size: 0}}}))})
	// A body of 64M one-byte tables: each an empty map, each a 100-byte
	// TableFrame.
	bomb := []byte{0x81, 0xa2, 't', 'b', 0xdd}
	bomb = binary.BigEndian.AppendUint32(bomb, 64<<20)
	bomb = append(bomb, bytes.Repeat([]byte{0x80}, 64<<20)...)
	files = append(files, craftedFile{"table-bomb", recordingOf(t, sealed(1, 0, true, bomb))})
	// Deltas that each add a table of a million rows of zero handles
	// (which compress to nothing).
	frames := []*protocol.WorldFrame{tinyWorldWith(t, worldSchemas()[0].Fields)}
	for i := range 40 {
		body := &protocol.WorldBody{Summary: protocol.Summary{}, Tables: []protocol.TableFrame{{Archetype: uint32(100 + i), Len: 1 << 20, Moved: true, Entities: make([]byte, 8<<20)}}}
		f := &protocol.WorldFrame{Tick: uint64(11 + i), Seq: uint64(1 + i)}
		if err := protocol.SealBody(f, body); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	files = append(files, craftedFile{"growing-deltas", recordingOf(t, frames...)})
	// A zstd frame that declares no size and decompresses to 256 MiB of
	// zeros.
	var z bytes.Buffer
	zw, err := zstd.NewWriter(&z, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for range 256 {
		if _, err := zw.Write(zero); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	files = append(files, craftedFile{"zstd-no-size", recordingOf(t, &protocol.WorldFrame{Tick: 1, Full: true, Body: z.Bytes()})})
	// A keyframe carrying more dead entities than a frame may.
	flood := tinyWorldWith(t, worldSchemas()[0].Fields)
	body, err := protocol.OpenBody(flood)
	if err != nil {
		t.Fatal(err)
	}
	for i := range protocol.MaxRecordedDead + 44 {
		body.Dead = append(body.Dead, protocol.DeadEntity{Entity: protocol.MakeEntityID(uint32(1000+i), 1), Died: protocol.Provenance{Tick: 1, By: "crafted"}})
	}
	if err := protocol.SealBody(flood, body); err != nil {
		t.Fatal(err)
	}
	files = append(files, craftedFile{"dead-flood", recordingOf(t, flood)})
	// One dead entity with 16M one-byte components, each decoding into
	// a ComponentValue.
	dead := []byte{0x81, 0xa2, 'd', 'd', 0x91, 0x83, 0xa1, 'e', 0x01, 0xa2, 'd', 'd', 0x80, 0xa2, 'c', 's', 0xdd}
	dead = binary.BigEndian.AppendUint32(dead, 16<<20)
	dead = append(dead, bytes.Repeat([]byte{0x80}, 16<<20)...)
	files = append(files, craftedFile{"dead-bomb", recordingOf(t, sealed(1, 0, true, dead))})
	return files
}

// readWhole reads a recording as dump and open do: every frame's world,
// entities' details (a page's worth a table), a page of a query; it
// returns the first error.
func readWhole(b []byte) (err error) {
	rec, err := ReadRecording(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	r := NewReplay(rec)
	for i := range rec.Frames {
		st, err := r.At(i)
		if err != nil {
			return err
		}
		for _, tb := range st.Tables {
			for _, e := range tb.Entities[:min(len(tb.Entities), 100)] {
				_ = st.Detail(e)
			}
		}
		if _, err := st.Query("Pos", 0, 0, 10); err != nil {
			return err
		}
	}
	return nil
}

// TestCraftedFilesAreRefusedCheaply: each crafted file is under 1 MiB;
// reading it whole never panics and allocates under 1 GiB in all; the
// ones that lie are refused with an error that says why.
func TestCraftedFilesAreRefusedCheaply(t *testing.T) {
	testpace.SkipUnderRace(t, "one goroutine decoding hundreds of MiB")
	want := map[string]string{ // "": reads, its lies answered with nothing
		"schema-overflow": "",
		"array-bomb":      "",
		"table-bomb":      "once decompressed",
		"growing-deltas":  "damaged or crafted",
		"zstd-no-size":    "once decompressed",
		"dead-flood":      "dead entities in one frame",
		"dead-bomb":       "over 256",
	}
	for _, f := range craftedFiles(t) {
		t.Run(f.name, func(t *testing.T) {
			if len(f.b) >= 1<<20 {
				t.Fatalf("the crafted file is %d bytes: the corpus is of files under 1 MiB", len(f.b))
			}
			alloc := allocated(func() {
				err := readWhole(f.b)
				switch w := want[f.name]; {
				case w == "" && err != nil:
					t.Fatalf("read: %v", err)
				case w != "" && (err == nil || !strings.Contains(err.Error(), w)):
					t.Fatalf("read: %v, want an error saying %q", err, w)
				}
			})
			if alloc > 1<<30 {
				t.Fatalf("reading a %d-byte file allocated %d MiB", len(f.b), alloc>>20)
			}
		})
	}
}

// TestDecodeBudgetCountsRealSizes: with the body limit out of the way,
// a body of one-byte elements that each decode into a large struct is
// refused by the 64-bytes-per-byte budget before the slice is made.
func TestDecodeBudgetCountsRealSizes(t *testing.T) {
	bomb := []byte{0x81, 0xa2, 't', 'b', 0xdd}
	bomb = binary.BigEndian.AppendUint32(bomb, 8<<20)
	bomb = append(bomb, bytes.Repeat([]byte{0x80}, 8<<20)...)
	st := NewWorldState()
	var err error
	alloc := allocated(func() { err = st.Apply(sealed(1, 0, true, bomb)) })
	if err == nil || !strings.Contains(err.Error(), "64 bytes per byte") {
		t.Fatalf("apply: %v", err)
	}
	if alloc > 256<<20 {
		t.Fatalf("refusing it allocated %d MiB", alloc>>20)
	}
}

// TestCraftedCorpusIsCurrent: the crafted files are kept in
// testdata/crafted for the commands' tests (dump, open) to read; they are
// what craftedFiles builds (go test ./protocol -run TestCraftedCorpus
// -update writes them).
func TestCraftedCorpusIsCurrent(t *testing.T) {
	testpace.SkipUnderRace(t, "one goroutine decoding hundreds of MiB")
	dir := filepath.Join("testdata", "crafted")
	for _, f := range craftedFiles(t) {
		path := filepath.Join(dir, f.name+".ecsrec")
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, f.b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(have, f.b) {
			t.Errorf("%s is not what craftedFiles builds (%v): run go test ./protocol -run TestCraftedCorpus -update", path, err)
		}
	}
}

// allocated is the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// BenchmarkReadCraftedFile reads each crafted file whole, as dump does,
// reporting the bytes it allocates (the heap a reader may need at most).
func BenchmarkReadCraftedFile(b *testing.B) {
	for _, f := range craftedFiles(b) {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			var most uint64
			for b.Loop() {
				most = max(most, allocated(func() { _ = readWhole(f.b) }))
			}
			b.ReportMetric(float64(most)/(1<<20), "MiB/file")
		})
	}
}

// TestScanOfManyBigKeyframesIsBounded: a small file of keyframes that
// each decompress to 8 MiB (a table of a million zero handles) is read
// frame by frame as a reader seeks (each keyframe alone is a world it may
// hold), but a scan of every frame (a first-tick search) stops once the
// frames decompressed to more than the scan's bound, saying why.
func TestScanOfManyBigKeyframesIsBounded(t *testing.T) {
	testpace.SkipUnderRace(t, "decompressing half a GiB")
	var frames []*protocol.WorldFrame
	for i := range 80 {
		body := &protocol.WorldBody{Summary: protocol.Summary{Full: true, Components: worldSchemas()},
			Tables: []protocol.TableFrame{{Archetype: 7, Len: 1 << 20, Moved: true, Entities: make([]byte, 8<<20)}}}
		f := &protocol.WorldFrame{Tick: uint64(1 + i), Full: true}
		if err := protocol.SealBody(f, body); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	b := recordingOf(t, frames...)
	if len(b) >= 1<<20 {
		t.Fatalf("the file is %d bytes", len(b))
	}
	rec, err := ReadRecording(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	r := NewReplay(rec)
	if st, err := r.At(len(frames) - 1); err != nil || st.Tick != 80 {
		t.Fatalf("seeking to the last keyframe: %v", err)
	}
	_, err = r.ScanQuery("Pos")
	if err == nil || !strings.Contains(err.Error(), "reading every frame would decompress over 512 MiB") {
		t.Fatalf("a scan of 80 keyframes of 8 MiB: %v", err)
	}
}

// TestChainBoundIsEachKeyframes: the bound on the deltas after a keyframe
// starts again at each keyframe: a file of ten keyframes, each followed by
// deltas well within its chain's bound but together past it, reads whole.
func TestChainBoundIsEachKeyframes(t *testing.T) {
	testpace.SkipUnderRace(t, "one goroutine decompressing 120 MiB")
	const rows = 1 << 18 // 2 MiB of handles a frame
	var frames []*protocol.WorldFrame
	seq := uint64(0)
	for k := range 10 {
		for d := range 6 {
			body := &protocol.WorldBody{Summary: protocol.Summary{Full: d == 0, Components: worldSchemas()},
				Tables: []protocol.TableFrame{{Archetype: uint32(100 + d), Len: rows, Moved: true, Entities: make([]byte, 8*rows)}}}
			seq++
			f := &protocol.WorldFrame{Tick: uint64(1 + 6*k + d), Seq: seq, Full: d == 0}
			if err := protocol.SealBody(f, body); err != nil {
				t.Fatal(err)
			}
			frames = append(frames, f)
		}
	}
	rec := openFrames(t, frames...)
	qt, err := NewReplay(rec).ScanQuery("Pos")
	if err != nil || qt.Read != len(frames) {
		t.Fatalf("ten chains of a keyframe and five 2 MiB deltas: read %d of %d frames: %v", qt.Read, len(frames), err)
	}
}

// TestFirstTickSaysWhatItCannotSee: when the ticks just before the first
// frame a query holds in were not recorded, the search says so (the query
// may hold first there); when they were, it says nothing more.
func TestFirstTickSaysWhatItCannotSee(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	enc := NewWorldEncoder()
	var frames []*protocol.WorldFrame
	for _, tick := range []uint64{1, 2, 3, 4, 7, 8} { // 5 and 6 not recorded
		f, err := enc.Encode(leanInput(tick, 3, tick == 1, false, false, rng)) // a delta sets Pos.X to the tick
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	rec := openFrames(t, frames...)
	for _, c := range []struct {
		expr  string
		first uint64
		says  string
	}{
		{"Pos.X>=6", 7, "ticks 5-6 before it were not recorded: it may hold first there"},
		{"Pos.X>=3", 3, ""},
	} {
		qt, err := NewReplay(rec).ScanQuery(c.expr)
		if err != nil || qt.First != c.first || qt.FirstCaveat() != c.says {
			t.Fatalf("%s: first %d, caveat %q (%v); want %d, %q", c.expr, qt.First, qt.FirstCaveat(), err, c.first, c.says)
		}
	}
}
