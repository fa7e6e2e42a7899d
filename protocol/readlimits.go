package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// ReadLimits bound what reading world frames may make a reader hold: a
// frame's body once decompressed, and the world a stream of frames
// rebuilds. A recording's reader takes them from the file's size
// (LimitsForFile): a small file cannot make a reader hold gigabytes,
// however its bytes are crafted. The zero value is DefaultReadLimits.
type ReadLimits struct {
	// MaxBody bounds one frame's body once decompressed (at most
	// MaxWorldBody).
	MaxBody int
	// MaxState bounds the bytes of the world rebuilt: entity handles,
	// raw values, and a Value's size per converted value.
	MaxState int64
	// MaxTables bounds the tables the world rebuilt holds.
	MaxTables int
}

// DefaultReadLimits are the limits of a stream read with no size to go
// by (a live world subscription): the 512 MiB body of PROTOCOL.md, a
// world of up to 64 GiB in up to 65,536 tables.
var DefaultReadLimits = ReadLimits{MaxBody: MaxWorldBody, MaxState: 64 << 30, MaxTables: 1 << 16}

// LimitsForFile are the limits for frames read from a file of size bytes:
// a body at most 128 times the file (at least 32 MiB, at most 512 MiB),
// a world at most 256 times the file (at least 128 MiB). A real recording
// holds its keyframes, which hold the world; compressed, they are rarely
// a hundredth of it (a world of zeros, say, at the floors).
func LimitsForFile(size int64) ReadLimits {
	l := DefaultReadLimits
	l.MaxBody = int(min(max(128*size, 32<<20), MaxWorldBody))
	l.MaxState = min(max(256*size, 128<<20), DefaultReadLimits.MaxState)
	return l
}

// OrDefault fills the zero fields.
func (l ReadLimits) OrDefault() ReadLimits {
	if l.MaxBody <= 0 || l.MaxBody > MaxWorldBody {
		l.MaxBody = MaxWorldBody
	}
	if l.MaxState <= 0 {
		l.MaxState = DefaultReadLimits.MaxState
	}
	if l.MaxTables <= 0 {
		l.MaxTables = DefaultReadLimits.MaxTables
	}
	return l
}

// zstdDecoders are zstd stream decoders, reused: decompress reads through one.
var zstdDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(MaxWorldBody))
	if err != nil {
		panic(err) // only bad options fail
	}
	return d
}}

// Decompress decodes a world frame's body, an S2 stream or zstd data
// (told apart by their first bytes), of at most limit bytes once
// decompressed. A zstd frame that declares more is refused before
// anything is allocated; the rest is read through a stream decoder, its
// buffer growing as bytes come and never past limit.
func Decompress(b []byte, limit int) ([]byte, error) {
	if bytes.HasPrefix(b, s2Magic) {
		return readLimited(s2.NewReader(bytes.NewReader(b), s2.ReaderMaxBlockSize(4<<20)), s2Size(b), limit)
	}
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		return nil, err
	}
	if h.HasFCS && h.FrameContentSize > uint64(limit) {
		return nil, fmt.Errorf("it declares %s once decompressed, over the limit of %s", ByteSize(int64(min(h.FrameContentSize, 1<<62))), ByteSize(int64(limit)))
	}
	d := zstdDecoders.Get().(*zstd.Decoder)
	defer func() {
		_ = d.Reset(nil)
		zstdDecoders.Put(d)
	}()
	if err := d.Reset(bytes.NewReader(b)); err != nil {
		return nil, err
	}
	want := max(64<<10, 4*len(b)) // a streamed frame does not say its size: about what bodies compress from
	if h.HasFCS {
		want = int(h.FrameContentSize)
	}
	return readLimited(d, want, limit)
}

// s2Magic opens every S2 stream (its stream identifier chunk).
var s2Magic = []byte("\xff\x06\x00\x00S2sTwO")

// s2Size is what the S2 stream b says it decodes to, summed over its
// chunks' headers (a compressed chunk's block opens with its decoded
// length, an uncompressed chunk is its own), so the output is made once
// at its size: a frame of predicted values decodes to five or six times
// its bytes, and a buffer grown from a guess copied and cleared it twice.
// It is a size to make room for, never trusted further: at most 16 times
// b (what the stream says past that is read as it comes, within the
// limit), at least 64 KiB.
func s2Size(b []byte) int {
	n, most := 0, 16*len(b)
	for rest := b; len(rest) >= 4 && n <= most; {
		typ, size := rest[0], int(rest[1])|int(rest[2])<<8|int(rest[3])<<16
		rest = rest[4:]
		if size > len(rest) {
			break
		}
		switch chunk := rest[:size]; {
		case typ == 0x00 && size > 4: // compressed: a checksum, then the block
			if d, k := binary.Uvarint(chunk[4:]); k > 0 {
				n += int(min(d, uint64(most)))
			}
		case typ == 0x01 && size >= 4: // uncompressed: a checksum, then the data
			n += size - 4
		}
		rest = rest[size:]
	}
	return max(64<<10, min(n, most))
}

// readLimited reads r whole, expecting about want bytes, refusing more
// than limit.
func readLimited(r io.Reader, want, limit int) ([]byte, error) {
	// Room for one read past the end too: ReadFrom grows a buffer that has
	// less than MinRead free before it reads EOF, doubling what was read.
	buf := bytes.NewBuffer(make([]byte, 0, min(want, limit)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(r, int64(limit)+1)); err != nil {
		return nil, err
	}
	if buf.Len() > limit {
		return nil, fmt.Errorf("it is over %s once decompressed", ByteSize(int64(limit)))
	}
	return buf.Bytes(), nil
}
