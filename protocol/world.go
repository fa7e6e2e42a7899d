package protocol

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/vmihailenco/msgpack/v5"
)

// TypeWorldFrame tags a WorldFrame.
const TypeWorldFrame Type = 73

// WorldFrame is the whole world at a tick (Full, a keyframe) or what
// changed since the stream's previous frame: what recordings hold, frame by
// frame, and what a `world` subscription streams. Body is the S2 (or, from
// agents before it, zstd) compression of a msgpack WorldBody.
type WorldFrame struct {
	Sub  uint32 `msgpack:"sub"`
	Tick uint64 `msgpack:"t"`
	Full bool   `msgpack:"full,omitempty"`
	Seq  uint64 `msgpack:"n"` // frames in this stream before this one; a reader that missed one waits for a Full frame
	Body []byte `msgpack:"z"`
	// Skipped, in a stream of every frame (hz 0) or a recording of every
	// frame, counts the game's frames not carried before this one, and
	// SkipWhy says why: this frame holds every change since the last one
	// carried, but the states between were not kept.
	Skipped uint64 `msgpack:"sk,omitempty"`
	SkipWhy string `msgpack:"skw,omitempty"`
}

// Type implements Message.
func (*WorldFrame) Type() Type { return TypeWorldFrame }

// WorldBody is a WorldFrame's content.
type WorldBody struct {
	// Summary is full on a keyframe, else a delta against the previous
	// frame's (ApplySummary): entity slots, archetypes, schemas, systems
	// and timings, event queues, resources (whole, in a delta where the
	// list changed; else see ResourcesChanged).
	Summary Summary `msgpack:"sum"`
	// ResourcesChanged, in a delta whose summary leaves the resources out,
	// is the resources that changed, each whole or as the numbers that
	// changed (ResourceChange).
	ResourcesChanged []ResourceChange `msgpack:"rsc,omitempty"`
	// Tables are the archetype tables and sparse components whose rows
	// moved or whose values changed (every one with rows on a keyframe).
	Tables []TableFrame `msgpack:"tb,omitempty"`
	// Links, when LinksSet, is every parent's children in link order, by
	// parent index.
	Links    []ChildList `msgpack:"lk,omitempty"`
	LinksSet bool        `msgpack:"lks,omitempty"`
	// LinksChanged, in a delta without LinksSet, is the parents whose
	// children changed since the frame before: each one's children now
	// (none: a parent no more). See ApplyLinks.
	LinksChanged []ChildList `msgpack:"lkc,omitempty"`
	// Journal holds the structural changes since the previous frame.
	Journal []JournalEntry `msgpack:"jn,omitempty"`
	// Events holds every event readable at this tick, per queue (at most
	// MaxRecordedEvents each), with the queue's counts.
	Events []EventQueue `msgpack:"ev,omitempty"`
	// Alloc is the entity allocator (see AllocFrame); absent from older
	// agents' frames.
	Alloc *AllocFrame `msgpack:"al,omitempty"`
	// Dead is the last state of the entities despawned since the stream's
	// previous frame, as the agent kept them (at most MaxRecordedDead):
	// an entity that lived and died between two frames of a recording is
	// still there to open.
	Dead []DeadEntity `msgpack:"dd,omitempty"`
}

// MaxRecordedDead bounds the dead entities a frame carries.
const MaxRecordedDead = 256

// DeadEntity is one despawned entity's last state: its components as the
// despawn found them (with who wrote and added each, when known), its
// parent, and who despawned it in which frame.
type DeadEntity struct {
	Entity     EntityID         `msgpack:"e"`
	Died       Provenance       `msgpack:"dd"`
	Parent     EntityID         `msgpack:"p,omitempty"`
	Components []ComponentValue `msgpack:"cs,omitempty"`
}

// Into makes d, a dead entity's Detail, show this last state: Died,
// Parent and Components as the despawn found them.
func (g DeadEntity) Into(d *Detail) {
	died := g.Died
	d.Died, d.Parent, d.Components = &died, g.Parent, g.Components
}

// MaxRecordedEvents bounds the events a frame keeps per queue.
const MaxRecordedEvents = 1024

// ChildList is one parent's children in link order.
type ChildList struct {
	Parent   EntityID   `msgpack:"p"`
	Children []EntityID `msgpack:"c"`
}

// TableFrame is one table's change: an archetype's, or a sparse
// component's entities and values.
type TableFrame struct {
	Archetype  uint32   `msgpack:"a"` // archetype id; for a sparse component, its id
	Sparse     bool     `msgpack:"sp,omitempty"`
	Components []uint16 `msgpack:"c"`
	Len        int      `msgpack:"n"` // rows after this frame
	// Moved says Entities holds the entity of every row (coded: XOR with
	// the previous list, byte planes); otherwise rows kept their entities.
	Moved    bool   `msgpack:"m,omitempty"`
	Entities []byte `msgpack:"e,omitempty"`
	// All says each column's values cover every row; otherwise they cover
	// the column's Changed rows, in order.
	All     bool          `msgpack:"all,omitempty"`
	Columns []ColumnFrame `msgpack:"cols"` // parallel to Components
}

// Column kinds in a ColumnFrame.
const (
	ColumnRaw    = 0 // values as memory: Size bytes each, coded in Raw
	ColumnValues = 1 // values as Values
)

// ColumnFrame is one column's change.
type ColumnFrame struct {
	Kind    uint8  `msgpack:"k,omitempty"`
	Changed []byte `msgpack:"ch,omitempty"` // rows written since the previous frame (a row set)
	Added   []byte `msgpack:"ad,omitempty"` // rows whose component was added since
	Size    int    `msgpack:"sz,omitempty"`
	Raw     []byte `msgpack:"r,omitempty"`
	// Lane, when set (4 or 8, dividing Size), says Raw codes each value
	// as its difference from a prediction from the reader's last two
	// values of the row (AppendPredicted); 0: XORed with the last value
	// (AppendPlanes).
	Lane uint8 `msgpack:"pl,omitempty"`
	// Packed, with Lane, says Raw holds the coded lanes packed by length
	// (AppendPacked) instead of in byte planes.
	Packed bool    `msgpack:"pk,omitempty"`
	Values []Value `msgpack:"v,omitempty"`
}

// Bounds on what a world frame may make a reader allocate.
const (
	// MaxWorldBody bounds a frame's body once decompressed.
	MaxWorldBody = 512 << 20
	MaxTableRows = 1 << 28
)

// sealer is what sealing a body streams through: the body's msgpack,
// buffered (the encoder writes small pieces), into an S2 stream (the
// klauspost/compress module's Snappy extension: about three times zstd's
// fastest speed for a quarter more bytes, which lets every frame of a
// busy world be recorded). No uncompressed copy of a body is made,
// however large, and nothing the size of a body is kept between frames;
// pooled. Readers take zstd bodies too (Decompress): files written
// before, and any writer that prefers the smaller output.
type sealer struct {
	z   *s2.Writer
	buf *bufio.Writer
}

var sealers = sync.Pool{New: func() any {
	z := s2.NewWriter(nil, s2.WriterConcurrency(1), s2.WriterBlockSize(sealBlock))
	return &sealer{z: z, buf: bufio.NewWriterSize(nil, 32<<10)}
}}

// sealBlock is the compressor's block: columns repeat within a few rows,
// so a larger one finds little more and costs its memory in every pooled
// sealer.
const sealBlock = 1 << 20

// SealBody encodes and compresses a body into a frame, streaming: the
// frame's body is the compressor's output, with memory of about its size.
func SealBody(f *WorldFrame, body *WorldBody) error { return SealBodySized(f, body, 0) }

// SealBodySized is SealBody with a guess at the bytes the sealed body
// will take (the size of the last like it; 0: a third of the body's), so
// a large body's output neither grows by doubling nor is copied to drop
// the slack.
func SealBodySized(f *WorldFrame, body *WorldBody, guess int) error {
	if body.SizeHint() <= zstdBodyMost {
		return sealSmall(f, body)
	}
	s := sealers.Get().(*sealer)
	defer sealers.Put(s)
	if guess <= 0 {
		guess = body.SizeHint() / compressionGuess
	}
	out := bytes.NewBuffer(make([]byte, 0, guess))
	s.z.Reset(out)
	s.buf.Reset(s.z)
	enc := encoders.Get().(*msgpack.Encoder)
	defer encoders.Put(enc)
	enc.ResetWriter(s.buf)
	enc.UseCompactInts(true)
	err := enc.Encode(body)
	if err == nil {
		err = s.buf.Flush()
	}
	if err == nil {
		err = s.z.Close()
	}
	s.buf.Reset(nil)
	s.z.Reset(nil) // the pooled sealer keeps no hold on the frame's memory
	if err != nil {
		return fmt.Errorf("protocol: encode world body: %w", err)
	}
	sealed := out.Bytes()
	if cap(sealed)-len(sealed) > len(sealed)/8 { // frames are kept: not with a grown buffer's slack
		sealed = slices.Clone(sealed)
	}
	f.Body = sealed
	return nil
}

// zstdBodyMost is the largest body (about, before compression) sealed
// with zstd rather than S2: zstd's entropy coding takes the byte planes
// of predicted values (small numbers, few repeats) a third smaller, at a
// third of S2's speed, which a small world's frames afford (the 10k demo:
// 0.5 MB a frame, 60 a second, a few percent of a core) and a big one's
// do not (the 100k demo: 5 MB).
const zstdBodyMost = 1 << 20

// sealSmall seals a body with zstd, through one msgpack buffer.
func sealSmall(f *WorldFrame, body *WorldBody) error {
	buf := smallBodies.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 2*zstdBodyMost { // a body far past the guess is not kept
			buf.Reset()
			smallBodies.Put(buf)
		}
	}()
	buf.Reset()
	enc := encoders.Get().(*msgpack.Encoder)
	defer encoders.Put(enc)
	enc.ResetWriter(buf)
	enc.UseCompactInts(true)
	if err := enc.Encode(body); err != nil {
		return fmt.Errorf("protocol: encode world body: %w", err)
	}
	sealed := smallSealer().EncodeAll(buf.Bytes(), make([]byte, 0, buf.Len()/3+64))
	if cap(sealed)-len(sealed) > len(sealed)/8 { // frames are kept: not with the guess's slack
		sealed = slices.Clone(sealed)
	}
	f.Body = sealed
	return nil
}

// smallBodies are the msgpack buffers of bodies sealSmall seals.
var smallBodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// smallSealer is the zstd encoder of small bodies: its fastest level,
// a few bodies at once.
var smallSealer = sync.OnceValue(func() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(2), zstd.WithLowerEncoderMem(true))
	if err != nil {
		panic(err) // only bad options fail
	}
	return e
})

// compressionGuess is about how much smaller a body gets compressed: with
// no better guess, the output buffer starts at the body's size over it.
const compressionGuess = 3

// SizeHint is about the bytes the body's encoding takes: its byte fields,
// a few bytes per listed value, and room for the rest.
func (b *WorldBody) SizeHint() int {
	n := 4096 + 64*len(b.Journal)
	for i := range b.Tables {
		t := &b.Tables[i]
		n += len(t.Entities) + 32
		for j := range t.Columns {
			c := &t.Columns[j]
			n += len(c.Changed) + len(c.Added) + len(c.Raw) + 16*len(c.Values) + 16
		}
	}
	if b.Alloc != nil {
		n += 5*len(b.Alloc.Gens) + 9*len(b.Alloc.Free)
	}
	return n
}

// OpenBody decompresses and decodes a frame's body, checking it as any
// untrusted message, within DefaultReadLimits.
func OpenBody(f *WorldFrame) (*WorldBody, error) {
	body, _, err := OpenBodyLimited(f, false, DefaultReadLimits)
	return body, err
}

// OpenBodyLimited is OpenBody within limits; passing leaves out the journal and
// the events, which only the frame a reader stops at needs. The budget
// it returns is what applying the body may still allocate.
func OpenBodyLimited(f *WorldFrame, passing bool, limits ReadLimits) (*WorldBody, *AllocBudget, error) {
	limits = limits.OrDefault()
	raw, err := Decompress(f.Body, limits.MaxBody)
	if err != nil {
		return nil, nil, fmt.Errorf("world frame at tick %d: decompress: %w", f.Tick, err)
	}
	if _, err := checkMsgpack(raw, maxDepth, decodeBudget(len(raw))); err != nil {
		return nil, nil, fmt.Errorf("world frame at tick %d: %w", f.Tick, err)
	}
	body, budget := &WorldBody{}, &AllocBudget{left: decodeBudget(len(raw)), inflated: len(raw)}
	if err := DecodeWorldBody(raw, body, passing, budget); err != nil {
		return nil, nil, fmt.Errorf("world frame at tick %d: %w", f.Tick, err)
	}
	return body, budget, nil
}

// AllocBudget is what decoding one body may still allocate: PROTOCOL.md's
// 64 bytes per byte of the body, counted at the sizes really allocated
// (a table's struct, a row list), before each allocation is made.
type AllocBudget struct {
	left     int64
	inflated int // the body's bytes once decompressed
}

// Inflated is the bytes the body was decompressed to.
func (b *AllocBudget) Inflated() int { return b.inflated }

// Take charges n elements of size bytes, or fails with what was asked.
func (b *AllocBudget) Take(n, size int, what string) error {
	if b == nil {
		return nil
	}
	want := int64(n) * int64(size)
	if n < 0 || size < 0 || want > b.left || (size > 0 && int64(n) > b.left/int64(size)+1) {
		return fmt.Errorf("%d %s would take %s, over the 64 bytes per byte a frame's body may decode into", n, what, ByteSize(want))
	}
	b.left -= want
	return nil
}
