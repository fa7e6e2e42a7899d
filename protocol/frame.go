package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrame is the largest frame either side accepts unless the
// handshake negotiates less: 16 MiB.
const DefaultMaxFrame = 16 << 20

// frameHeader is the size of a frame's length prefix.
const frameHeader = 4

// ErrFrameTooLarge is matched by errors about a frame over the limit.
var ErrFrameTooLarge = errors.New("protocol: frame exceeds limit")

// ErrPeerSilent is a session's read error when the peer said nothing for
// longer than the session allows (a session over a broker, whose peer
// pings): the agent drops the client with code timeout.
var ErrPeerSilent = errors.New("protocol: nothing heard from the peer")

// FrameReader reads length-prefixed frames: a 4-byte big-endian length, then
// that many bytes. A length over the limit is an error before anything of
// that size is allocated.
type FrameReader struct {
	r   io.Reader
	max int
	hdr [frameHeader]byte
	buf []byte
	// started, if set, is called once a frame's length is read and before
	// its payload is: a connection arms its mid-frame deadline there.
	started func()
}

// NewFrameReader reads frames of at most max bytes from r (DefaultMaxFrame
// if max <= 0).
func NewFrameReader(r io.Reader, max int) *FrameReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &FrameReader{r: r, max: max}
}

// SetMax changes the largest frame accepted, as negotiated.
func (fr *FrameReader) SetMax(max int) {
	if max > 0 {
		fr.max = max
	}
}

// ReadFrame returns the next frame's payload, valid until the next call. At
// a clean end of stream it returns io.EOF; a stream cut inside a frame is
// io.ErrUnexpectedEOF.
func (fr *FrameReader) ReadFrame() ([]byte, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(fr.hdr[:])
	if n == 0 {
		return nil, errors.New("protocol: empty frame")
	}
	if uint64(n) > uint64(fr.max) {
		return nil, fmt.Errorf("%w: frame of %s exceeds limit %s", ErrFrameTooLarge, ByteSize(int64(n)), ByteSize(int64(fr.max)))
	}
	if fr.started != nil {
		fr.started()
	}
	if cap(fr.buf) < int(n) {
		fr.buf = make([]byte, n)
	}
	fr.buf = fr.buf[:n]
	if _, err := io.ReadFull(fr.r, fr.buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("protocol: frame of %d bytes cut short: %w", n, err)
	}
	return fr.buf, nil
}

// AppendFrame appends payload to dst as one frame.
func AppendFrame(dst, payload []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}

// WriteFrame writes payload as one frame in a single Write. It refuses a
// payload over max bytes (DefaultMaxFrame if max <= 0).
func WriteFrame(w io.Writer, payload []byte, max int) error {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	if len(payload) == 0 {
		return errors.New("protocol: empty frame")
	}
	if len(payload) > max {
		return fmt.Errorf("%w: frame of %s exceeds limit %s", ErrFrameTooLarge, ByteSize(int64(len(payload))), ByteSize(int64(max)))
	}
	_, err := w.Write(AppendFrame(make([]byte, 0, frameHeader+len(payload)), payload))
	return err
}

// byteSize prints a size the way people read it: 512 B, 3.2 KiB, 20 MiB.
func ByteSize[N ~int | ~int32 | ~int64 | ~uint32 | ~uint64](size N) string {
	n := int64(size)
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	case n < 1<<30:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	default:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<30))) + " GiB"
	}
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
