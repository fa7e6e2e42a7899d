package recording

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/vmihailenco/msgpack/v5"
)

// The .ecsrec recording format.
//
//	file    = magic header { record } [ index footer ]
//	magic   = "ECSREC" 0x00 version(1 byte)            8 bytes
//	header  = length(u32) msgpack {v, g, t0, pv}        the RecordingHeader
//	record  = length(u32) tick(u64) wall(i64) flags(u8) message
//	index   = "ECSIDX" 0x00 0x01 count(u32) { tick(u64) offset(u64) flags(u8) }
//	footer  = indexOffset(u64) "ECSEND" 0x00 0x01       16 bytes, the last of the file
//
// All integers are big-endian. A record's length counts what follows it
// (17 bytes of tick, wall time in Unix nanoseconds and flags, then the
// message as on the wire: msgpack [type, body]). Flag 1 marks a keyframe: a
// full frame that needs nothing before it; the frames between keyframes are
// deltas. The index, written on close, lets a reader seek to any tick
// without reading the records; a file without one (the game crashed) is read
// record by record up to the last whole one.

const (
	recordingVersion = 4
	// oldestReadable is the oldest format this reader takes: version 3
	// is version 4 without resource changes (WorldBody.ResourcesChanged),
	// version 2 version 3 without packed columns (ColumnFrame.Packed).
	oldestReadable   = 2
	recordHeaderSize = 4 + 8 + 8 + 1
	indexEntrySize   = 8 + 8 + 1
	footerSize       = 16
	// FlagKeyframe marks a record that is a full frame.
	FlagKeyframe = 1
)

var (
	recMagic    = []byte("ECSREC\x00")
	indexMagic  = []byte("ECSIDX\x00\x01")
	footerMagic = []byte("ECSEND\x00\x01")
)

// RecordingHeader describes a recording.
type RecordingHeader struct {
	Version  int       `msgpack:"v"`
	Game     string    `msgpack:"g,omitempty"`
	Start    time.Time `msgpack:"t0"`
	Protocol int       `msgpack:"pv"`
	// Hz is the rate frames were recorded at; 0: every frame the agent saw.
	Hz float64 `msgpack:"hz,omitempty"`
}

// RecordWriter writes a recording. Records go through a buffer; Close
// writes the index and footer.
type RecordWriter struct {
	f       io.Writer
	bw      *bufio.Writer
	closer  io.Closer
	off     int64
	index   []FrameInfo
	buf     []byte
	err     error
	flushed time.Time // when the buffer last went to the file
}

// CreateRecording creates (or truncates) the file at path and writes the
// recording header (its version, protocol and start time are filled in).
func CreateRecording(path string, hdr RecordingHeader) (*RecordWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("protocol: create recording: %w", err)
	}
	hdr.Start = time.Now()
	w, err := NewRecordWriter(f, hdr)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.closer = f
	return w, nil
}

// NewRecordWriter writes a recording to w, starting with its header.
func NewRecordWriter(w io.Writer, h RecordingHeader) (*RecordWriter, error) {
	rw := &RecordWriter{f: w, bw: bufio.NewWriterSize(w, 256<<10)}
	h.Version, h.Protocol, h.Start = recordingVersion, protocol.Version, h.Start.UTC()
	hdr, err := msgpack.Marshal(&h)
	if err != nil {
		return nil, err
	}
	b := append(append([]byte{}, recMagic...), recordingVersion)
	b = protocol.AppendFrame(b, hdr)
	if _, err := rw.bw.Write(b); err != nil {
		return nil, fmt.Errorf("protocol: write recording header: %w", err)
	}
	// The header is on disk before the first frame: a recording cut at
	// any moment after this opens.
	if err := rw.bw.Flush(); err != nil {
		return nil, fmt.Errorf("protocol: write recording header: %w", err)
	}
	rw.off = int64(len(b))
	rw.flushed = time.Now()
	return rw, nil
}

// Write appends one frame: the world at tick, sent at wall; key marks a
// full frame (a keyframe).
func (w *RecordWriter) Write(tick uint64, wall time.Time, key bool, m protocol.Message) error {
	if w.err != nil {
		return w.err
	}
	var err error
	w.buf, err = protocol.AppendEncode(w.buf[:0], m)
	if err != nil {
		return err
	}
	return w.WriteEncoded(tick, wall, key, w.buf)
}

// WriteWorld appends one world frame (a keyframe if it is full).
func (w *RecordWriter) WriteWorld(f *protocol.WorldFrame) error {
	return w.Write(f.Tick, time.Now(), f.Full, f)
}

// WriteEncoded is Write for a message already encoded.
func (w *RecordWriter) WriteEncoded(tick uint64, wall time.Time, key bool, msg []byte) error {
	if w.err != nil {
		return w.err
	}
	var hdr [recordHeaderSize]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(recordHeaderSize-4+len(msg)))
	binary.BigEndian.PutUint64(hdr[4:], tick)
	binary.BigEndian.PutUint64(hdr[12:], uint64(wall.UnixNano()))
	var flags uint8
	if key {
		flags = FlagKeyframe
	}
	hdr[20] = flags
	if _, err := w.bw.Write(hdr[:]); err != nil {
		w.err = err
		return err
	}
	if _, err := w.bw.Write(msg); err != nil {
		w.err = err
		return err
	}
	w.index = append(w.index, FrameInfo{Tick: tick, Wall: wall, Offset: w.off, Size: int64(recordHeaderSize + len(msg)), Keyframe: key})
	w.off += int64(recordHeaderSize + len(msg))
	if time.Since(w.flushed) >= FlushEvery {
		return w.Flush()
	}
	return nil
}

// FlushEvery is the longest a written frame waits in the writer's buffer:
// a process killed at any moment loses at most this much of its recording
// (call Flush when frames stop coming, as the agent's recorder does).
const FlushEvery = time.Second

// Frames is how many frames were written.
func (w *RecordWriter) Frames() int { return len(w.index) }

// Bytes is how many bytes were written, so far.
func (w *RecordWriter) Bytes() int64 { return w.off }

// Flush pushes buffered records to the file, so that a crash after it loses
// nothing written before it.
func (w *RecordWriter) Flush() error {
	w.flushed = time.Now()
	if err := w.bw.Flush(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Close writes the index and footer, flushes, and closes the file if the
// writer opened it.
func (w *RecordWriter) Close() error {
	err := w.err
	if err == nil {
		b := append([]byte{}, indexMagic...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(w.index)))
		for _, fi := range w.index {
			b = binary.BigEndian.AppendUint64(b, fi.Tick)
			b = binary.BigEndian.AppendUint64(b, uint64(fi.Offset))
			var flags byte
			if fi.Keyframe {
				flags = FlagKeyframe
			}
			b = append(b, flags)
		}
		b = binary.BigEndian.AppendUint64(b, uint64(w.off))
		b = append(b, footerMagic...)
		if _, err = w.bw.Write(b); err == nil {
			err = w.bw.Flush()
		}
	}
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
	}
	w.err = errors.New("protocol: recording closed")
	return err
}

// FrameInfo locates one recorded frame.
type FrameInfo struct {
	Tick     uint64
	Wall     time.Time // zero when read from the index alone
	Offset   int64     // of the record in the file
	Size     int64     // of the record, header included
	Keyframe bool
}

// Recording is an opened .ecsrec file.
type Recording struct {
	Header RecordingHeader
	Frames []FrameInfo
	// Truncated is set when the file had no index (the writer did not close
	// it): it was read record by record, up to the last whole one.
	Truncated bool
	// Note says what was recovered from a truncated file, for people.
	Note string

	r    io.ReaderAt
	size int64
	c    io.Closer
	buf  []byte
}

// OpenRecording opens the recording at path: a file, or a flight
// recording's directory of segments (see Keep), read as one.
func OpenRecording(path string) (*Recording, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return openKept(path) // a flight recording's segments
	}
	f, size, err := openRegular(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // "FILE: no such file or directory", as for a bad file
			err = pe.Err
		}
		return nil, fmt.Errorf("protocol: %s: %w", path, err)
	}
	rec, err := ReadRecording(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("protocol: %s: %w", path, err)
	}
	rec.c = f
	return rec, nil
}

// OpenFrames opens the recording at path and fails unless it holds at
// least one whole frame: what a reader that shows a state needs.
func OpenFrames(path string) (*Recording, error) {
	rec, err := OpenRecording(path)
	if err != nil {
		return nil, err
	}
	if len(rec.Frames) == 0 {
		rec.Close()
		return nil, fmt.Errorf("%s holds no whole frame (%s)", path, rec.Note)
	}
	return rec, nil
}

// Close closes the file.
func (rec *Recording) Close() error {
	if rec.c != nil {
		return rec.c.Close()
	}
	return nil
}

// ReadRecording reads a recording of size bytes from r: its header, and its
// index, or, without one, every record's position.
func ReadRecording(r io.ReaderAt, size int64) (*Recording, error) {
	rec := &Recording{r: r, size: size}
	head := make([]byte, min(size, 8+4))
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(head) < 8 || !bytes.Equal(head[:7], recMagic) {
		return nil, errors.New("not an .ecsrec recording (bad magic bytes)")
	}
	if head[7] < oldestReadable || head[7] > recordingVersion {
		if head[7] < oldestReadable {
			return nil, fmt.Errorf("recording format version %d, from an older ecsinspect (it held summaries, not every entity); this reader knows versions %d to %d: record the game again", head[7], oldestReadable, recordingVersion)
		}
		return nil, fmt.Errorf("recording format version %d, from a newer ecsinspect; this reader knows version %d", head[7], recordingVersion)
	}
	if len(head) < 12 {
		return nil, errors.New("recording header cut short")
	}
	hlen := int64(binary.BigEndian.Uint32(head[8:]))
	if hlen == 0 || hlen > 1<<16 || 12+hlen > size {
		return nil, errors.New("recording header cut short or corrupt")
	}
	hb := make([]byte, hlen)
	if _, err := r.ReadAt(hb, 12); err != nil {
		return nil, err
	}
	if err := protocol.UnmarshalChecked(hb, 4, &rec.Header); err != nil {
		return nil, fmt.Errorf("recording header: %w", err)
	}
	first := 12 + hlen
	if !rec.readIndex(first) {
		rec.scan(first)
	}
	if err := rec.checkTicks(); err != nil {
		return nil, err
	}
	return rec, nil
}

// checkTicks refuses a recording whose ticks go back: a writer starts a
// new file at a rewind, so in one file every frame's tick is at least the
// one before, and a reader that seeks by tick relies on it.
func (rec *Recording) checkTicks() error {
	for i := 1; i < len(rec.Frames); i++ {
		if rec.Frames[i].Tick < rec.Frames[i-1].Tick {
			return fmt.Errorf("frame %d is at tick %d, after frame %d at tick %d: ticks in a recording never go back (a rewound game's recording goes on in a new file), so this file is corrupt or crafted", i+1, rec.Frames[i].Tick, i, rec.Frames[i-1].Tick)
		}
	}
	return nil
}

// readIndex reads the index through the footer; false if there is none or
// it does not hold together.
func (rec *Recording) readIndex(first int64) bool {
	if rec.size < first+footerSize+int64(len(indexMagic))+4 {
		return false
	}
	var foot [footerSize]byte
	if _, err := rec.r.ReadAt(foot[:], rec.size-footerSize); err != nil || !bytes.Equal(foot[8:], footerMagic) {
		return false
	}
	at := int64(binary.BigEndian.Uint64(foot[:8]))
	if at < first || at > rec.size-footerSize-int64(len(indexMagic))-4 {
		return false
	}
	n := rec.size - footerSize - at
	b := make([]byte, n)
	if _, err := rec.r.ReadAt(b, at); err != nil || !bytes.Equal(b[:len(indexMagic)], indexMagic) {
		return false
	}
	count := int64(binary.BigEndian.Uint32(b[len(indexMagic):]))
	body := b[len(indexMagic)+4:]
	if count*indexEntrySize != int64(len(body)) {
		return false
	}
	frames := make([]FrameInfo, count)
	for i := range frames {
		e := body[i*indexEntrySize:]
		frames[i] = FrameInfo{Tick: binary.BigEndian.Uint64(e), Offset: int64(binary.BigEndian.Uint64(e[8:])), Keyframe: e[16]&FlagKeyframe != 0}
		end := at
		if i+1 < len(frames) {
			end = int64(binary.BigEndian.Uint64(body[(i+1)*indexEntrySize+8:]))
		}
		frames[i].Size = end - frames[i].Offset
		if frames[i].Offset < first || frames[i].Size < recordHeaderSize || frames[i].Offset+frames[i].Size > at {
			return false
		}
	}
	rec.Frames = frames
	return true
}

// scan reads records from first on until the file ends or a record is cut
// short or corrupt.
func (rec *Recording) scan(first int64) {
	rec.Truncated = true
	var hdr [recordHeaderSize]byte
	off := first
	for {
		n, err := rec.r.ReadAt(hdr[:], off)
		if n < recordHeaderSize {
			if off != rec.size || err == nil && n > 0 {
				rec.Note = fmt.Sprintf("file cut short inside frame %d; %d whole frames recovered", len(rec.Frames)+1, len(rec.Frames))
			}
			break
		}
		length := int64(binary.BigEndian.Uint32(hdr[:]))
		if bytes.Equal(hdr[:len(indexMagic)], indexMagic) {
			rec.Note = "index cut short; frames read one by one"
			break
		}
		// Records of any size the writer makes are read back; only the
		// file's end bounds them.
		if length < recordHeaderSize-4+1 || off+4+length > rec.size {
			rec.Note = fmt.Sprintf("file cut short inside frame %d; %d whole frames recovered", len(rec.Frames)+1, len(rec.Frames))
			break
		}
		rec.Frames = append(rec.Frames, FrameInfo{
			Tick:     binary.BigEndian.Uint64(hdr[4:]),
			Wall:     time.Unix(0, int64(binary.BigEndian.Uint64(hdr[12:]))),
			Offset:   off,
			Size:     4 + length,
			Keyframe: hdr[20]&FlagKeyframe != 0,
		})
		off += 4 + length
	}
	if rec.Note == "" {
		rec.Note = fmt.Sprintf("no index (the recording was not closed); %d frames read one by one", len(rec.Frames))
	}
}

// Message reads and decodes frame i.
func (rec *Recording) Message(i int) (protocol.Message, error) {
	if i < 0 || i >= len(rec.Frames) {
		return nil, fmt.Errorf("protocol: frame %d of %d", i, len(rec.Frames))
	}
	fi := &rec.Frames[i]
	if cap(rec.buf) < int(fi.Size) {
		rec.buf = make([]byte, fi.Size)
	}
	b := rec.buf[:fi.Size]
	if _, err := rec.r.ReadAt(b, fi.Offset); err != nil {
		return nil, fmt.Errorf("protocol: read frame %d: %w", i, err)
	}
	if int64(binary.BigEndian.Uint32(b))+4 != fi.Size {
		return nil, fmt.Errorf("protocol: frame %d: record length does not match the index", i)
	}
	if fi.Wall.IsZero() {
		fi.Wall = time.Unix(0, int64(binary.BigEndian.Uint64(b[12:])))
	}
	m, err := protocol.Decode(b[recordHeaderSize:])
	if err != nil {
		return nil, fmt.Errorf("protocol: frame %d: %w", i, err)
	}
	return m, nil
}

// Type returns the message type of frame i without decoding it.
func (rec *Recording) Type(i int) (protocol.Type, error) {
	if i < 0 || i >= len(rec.Frames) {
		return 0, fmt.Errorf("protocol: frame %d of %d", i, len(rec.Frames))
	}
	var b [2]byte
	if _, err := rec.r.ReadAt(b[:], rec.Frames[i].Offset+recordHeaderSize); err != nil {
		return 0, fmt.Errorf("protocol: read frame %d: %w", i, err)
	}
	if b[0] != 0x92 {
		return 0, fmt.Errorf("protocol: frame %d is not a message", i)
	}
	return protocol.Type(b[1]), nil
}

// Seek returns the index of the last frame at or before tick (0 if tick is
// before the first), by binary search.
func (rec *Recording) Seek(tick uint64) int {
	i := sort.Search(len(rec.Frames), func(i int) bool { return rec.Frames[i].Tick > tick })
	return max(i-1, 0)
}

// FrameFor finds the frame that shows tick: the last recorded at or
// before it. note says so when tick itself was not recorded ("state as of
// tick N"); a tick before the recording starts is an error. Every reader
// of a recording (review, dump, diff) asks here, so all say the same.
func (rec *Recording) FrameFor(tick uint64) (i int, note string, err error) {
	if len(rec.Frames) == 0 {
		return 0, "", errors.New("the recording holds no frames")
	}
	first, last := rec.Frames[0].Tick, rec.Frames[len(rec.Frames)-1].Tick
	if tick < first {
		return 0, "", fmt.Errorf("tick %d is before the recording starts (ticks %d to %d)", tick, first, last)
	}
	i = rec.Seek(tick)
	if got := rec.Frames[i].Tick; got != tick {
		if rec.Header.Hz == 0 && i+1 < len(rec.Frames) {
			// A recording of every frame: the ticks between two frames
			// are a gap, and the state as of the frame before is not the
			// game's at tick.
			return i, "", fmt.Errorf("no frame recorded for tick %d: the recording skipped ticks %d to %d (%s)",
				tick, got+1, rec.Frames[i+1].Tick-1, rec.GapWhy(i+1))
		}
		note = fmt.Sprintf("tick %d was not recorded: state as of tick %d, the last recorded before it", tick, got)
	}
	return i, note, nil
}

// Gaps counts the gaps of a recording of every frame (Header.Hz 0): the
// places where ticks were skipped between two frames, and the ticks
// skipped in all. A recording at a rate has none: it skips by design.
func (rec *Recording) Gaps() (gaps int, ticks uint64) {
	return rec.GapsBetween(0, len(rec.Frames)-1)
}

// GapsBetween is Gaps between frames i and j (in either order): the
// places ticks were skipped from one to the other, and the ticks skipped.
func (rec *Recording) GapsBetween(i, j int) (gaps int, ticks uint64) {
	if i > j {
		i, j = j, i
	}
	for k := max(i, 0) + 1; k <= j && k < len(rec.Frames); k++ {
		if skipped := rec.SkippedBefore(k); skipped > 0 {
			gaps++
			ticks += skipped
		}
	}
	return gaps, ticks
}

// SkippedBefore is how many ticks were not recorded between frame i-1 and
// frame i: 0 for a recording at a rate, which skips by design.
func (rec *Recording) SkippedBefore(i int) uint64 {
	if rec.Header.Hz != 0 || i <= 0 || i >= len(rec.Frames) || rec.Frames[i].Tick <= rec.Frames[i-1].Tick {
		return 0
	}
	return rec.Frames[i].Tick - rec.Frames[i-1].Tick - 1
}

// GapWhy says why the ticks before frame i were not recorded, as the
// frame says (WorldFrame.SkipWhy, its control characters escaped: a file
// is anyone's text), or that the file does not say.
func (rec *Recording) GapWhy(i int) string {
	const unknown = "the file does not say why"
	if i < 0 || i >= len(rec.Frames) {
		return unknown
	}
	fi := rec.Frames[i]
	if rec.r == nil || fi.Size < recordHeaderSize {
		return unknown
	}
	b := make([]byte, fi.Size)
	if _, err := rec.r.ReadAt(b, fi.Offset); err != nil || len(b) < recordHeaderSize {
		return unknown
	}
	m, err := protocol.Decode(b[recordHeaderSize:])
	if wf, ok := m.(*protocol.WorldFrame); err == nil && ok && wf.SkipWhy != "" {
		return printable.Text(wf.SkipWhy)
	}
	return unknown
}

// KeyframeAt returns the index of the last keyframe at or before frame i,
// or -1 if there is none.
func (rec *Recording) KeyframeAt(i int) int {
	for ; i >= 0; i-- {
		if i < len(rec.Frames) && rec.Frames[i].Keyframe {
			return i
		}
	}
	return -1
}
