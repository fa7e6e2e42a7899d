package recording

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// A flight recording keeps only the last minutes, or the last bytes, of a
// run: a directory of segments, each a whole recording file (000001.ecsrec,
// 000002.ecsrec, ...) that starts with a keyframe. A segment ends at the
// first keyframe after it holds an eighth of what is kept, and the oldest
// go as long as the rest still hold it all; a reader (OpenRecording of the
// directory) reads the segments as one recording. Killed, the directory
// opens up to the last whole frame of its newest segment.

// Keep is what a flight recording keeps: the last Duration of the run,
// or its last Bytes on disk (one of them set).
type Keep struct {
	Duration time.Duration
	Bytes    int64
}

// keepSegments is how many segments a flight recording spreads what it
// keeps over: it holds that, and at most one segment more.
const keepSegments = 8

// maxKeptSegments bounds the segments a reader opens from one directory
// (each an open file): a directory of more is not a flight recording.
const maxKeptSegments = 256

// ParseKeep reads --keep: a duration ("10m", "90s", "1h") or a size
// ("2GB", "500MB", "64MiB").
func ParseKeep(s string) (Keep, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < time.Second {
			return Keep{}, fmt.Errorf("--keep %s: keep a second at least", s)
		}
		return Keep{Duration: d}, nil
	}
	units := []struct {
		suffix string
		n      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || v <= 0 || v*float64(u.n) > 1<<50 {
				break
			}
			if b := int64(v * float64(u.n)); b >= 8_000_000 {
				return Keep{Bytes: b}, nil
			}
			return Keep{}, fmt.Errorf("--keep %s: keep 8MB at least (a segment holds a keyframe)", s)
		}
	}
	return Keep{}, fmt.Errorf("--keep %q: want a duration (10m, 1h) or a size (2GB, 500MB)", s)
}

func (k Keep) String() string {
	if k.Duration > 0 {
		return k.Duration.String()
	}
	return protocol.ByteSize(k.Bytes)
}

// FrameWriter is where a recording's frames go: a file (RecordWriter) or
// a flight recording's directory (KeptWriter).
type FrameWriter interface {
	WriteWorld(f *protocol.WorldFrame) error
	Flush() error
	Close() error
	Bytes() int64 // on disk, or on its way there
}

var _ FrameWriter = (*RecordWriter)(nil)
var _ FrameWriter = (*KeptWriter)(nil)

// KeptWriter writes a flight recording into a directory (see Keep).
type KeptWriter struct {
	dir   string
	hdr   RecordingHeader
	keep  Keep
	cur   *RecordWriter
	since time.Time // when the current segment began
	segs  []keptSegment
	n     int              // segments made
	clock func() time.Time // time.Now; a test's own clock
}

// keptSegment is a closed segment still on disk.
type keptSegment struct {
	path        string
	bytes       int64
	first, last time.Time // wall times of its first frame and of the next segment's
}

// CreateKept makes the directory dir (it must not hold a recording
// already) and starts a flight recording in it.
func CreateKept(dir string, hdr RecordingHeader, keep Keep) (*KeptWriter, error) {
	return createKept(dir, hdr, keep, time.Now)
}

// createKept is CreateKept on the clock given.
func createKept(dir string, hdr RecordingHeader, keep Keep, clock func() time.Time) (*KeptWriter, error) {
	if keep.Duration <= 0 && keep.Bytes <= 0 {
		return nil, errors.New("a flight recording keeps a duration or a size")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("protocol: create flight recording: %w", err)
	}
	if old, _ := filepath.Glob(filepath.Join(dir, "*.ecsrec")); len(old) > 0 {
		return nil, fmt.Errorf("protocol: %s holds a recording already: name another directory", dir)
	}
	k := &KeptWriter{dir: dir, hdr: hdr, keep: keep, clock: clock}
	return k, k.next()
}

// next starts the next segment.
func (k *KeptWriter) next() error {
	k.n++
	w, err := CreateRecording(filepath.Join(k.dir, fmt.Sprintf("%06d.ecsrec", k.n)), k.hdr)
	if err != nil {
		return err
	}
	k.cur, k.since = w, k.clock()
	return nil
}

// full reports whether the current segment holds its share of what is
// kept.
func (k *KeptWriter) full(now time.Time) bool {
	if k.keep.Duration > 0 {
		return now.Sub(k.since) >= k.keep.Duration/keepSegments
	}
	return k.cur.Bytes() >= k.keep.Bytes/keepSegments
}

// WriteWorld writes a frame; a keyframe after the current segment is full
// starts the next, and the oldest segments no longer needed go.
func (k *KeptWriter) WriteWorld(f *protocol.WorldFrame) error {
	if now := k.clock(); f.Full && k.cur.Frames() > 0 && k.full(now) {
		if err := k.cur.Close(); err != nil {
			return err
		}
		seg := keptSegment{path: filepath.Join(k.dir, fmt.Sprintf("%06d.ecsrec", k.n)), bytes: k.cur.Bytes(), first: k.since, last: now}
		if st, err := os.Stat(seg.path); err == nil {
			seg.bytes = st.Size() // with its index
		}
		k.segs = append(k.segs, seg)
		if err := k.next(); err != nil {
			return err
		}
		k.trim(now)
	}
	return k.cur.WriteWorld(f)
}

// trim removes the oldest segments while the others still hold what is
// kept.
func (k *KeptWriter) trim(now time.Time) {
	for len(k.segs) > 0 {
		old := k.segs[0]
		var rest int64
		for _, s := range k.segs[1:] {
			rest += s.bytes
		}
		enough := k.keep.Duration > 0 && now.Sub(old.last) >= k.keep.Duration ||
			k.keep.Bytes > 0 && rest+k.cur.Bytes()+old.bytes > k.keep.Bytes && rest > 0
		if !enough {
			return
		}
		_ = os.Remove(old.path)
		k.segs = k.segs[1:]
	}
}

// Bytes is what the recording holds on disk now.
func (k *KeptWriter) Bytes() int64 {
	n := k.cur.Bytes()
	for _, s := range k.segs {
		n += s.bytes
	}
	return n
}

// Flush flushes the current segment.
func (k *KeptWriter) Flush() error { return k.cur.Flush() }

// Close closes the current segment: the directory is whole.
func (k *KeptWriter) Close() error { return k.cur.Close() }

// openKept reads a flight recording's segments as one recording.
func openKept(dir string) (*Recording, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.ecsrec"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("protocol: %s is a directory with no recording segments (NNNNNN.ecsrec) in it", dir)
	}
	if len(names) > maxKeptSegments {
		return nil, fmt.Errorf("protocol: %s holds %d segments: a flight recording holds about %d (it keeps what it keeps and one more), so this is not one", dir, len(names), keepSegments+1)
	}
	slices.Sort(names)
	cat := &concatFiles{}
	var out *Recording
	for _, name := range names {
		f, size, err := openRegular(name)
		if err != nil {
			continue // gone as the writer trimmed it, or not a file
		}
		seg, err := ReadRecording(f, size)
		if err != nil || len(seg.Frames) == 0 {
			f.Close()
			continue
		}
		base := cat.add(f, size)
		if out == nil {
			out = &Recording{Header: seg.Header}
		} else if last := out.Frames[len(out.Frames)-1].Tick; seg.Frames[0].Tick <= last {
			cat.Close()
			return nil, fmt.Errorf("protocol: %s starts at tick %d, not after the segment before (tick %d)", name, seg.Frames[0].Tick, last)
		}
		for _, fi := range seg.Frames {
			fi.Offset += base
			out.Frames = append(out.Frames, fi)
		}
		out.Truncated, out.Note = seg.Truncated, seg.Note
	}
	if out == nil {
		cat.Close()
		return nil, fmt.Errorf("protocol: %s holds no segment that opens", dir)
	}
	out.r, out.c, out.size = cat, cat, cat.size
	return out, nil
}

// concatFiles reads files as one, each after the one before (a frame
// never spans two).
type concatFiles struct {
	files []*os.File
	bases []int64
	size  int64
}

func (c *concatFiles) add(f *os.File, size int64) (base int64) {
	base = c.size
	c.files, c.bases = append(c.files, f), append(c.bases, base)
	c.size += size
	return base
}

func (c *concatFiles) ReadAt(p []byte, off int64) (int, error) {
	i, found := slices.BinarySearch(c.bases, off)
	if !found {
		i--
	}
	if i < 0 || off >= c.size {
		return 0, io.EOF
	}
	return c.files[i].ReadAt(p, off-c.bases[i])
}

func (c *concatFiles) Close() error {
	var err error
	for _, f := range c.files {
		err = errors.Join(err, f.Close())
	}
	return err
}
