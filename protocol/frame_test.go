package protocol

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFrameRoundTripSplitAtEveryByte(t *testing.T) {
	var stream []byte
	payloads := [][]byte{[]byte("a"), bytes.Repeat([]byte("xy"), 300), {0x92, 0x01, 0x80}}
	for _, p := range payloads {
		stream = AppendFrame(stream, p)
	}
	for cut := 0; cut <= len(stream); cut++ {
		r := io.MultiReader(iotest.OneByteReader(bytes.NewReader(stream[:cut])), bytes.NewReader(stream[cut:]))
		fr := NewFrameReader(r, 1024)
		for i, want := range payloads {
			got, err := fr.ReadFrame()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("cut %d frame %d: %q, %v", cut, i, got, err)
			}
		}
		if _, err := fr.ReadFrame(); err != io.EOF {
			t.Fatalf("cut %d: end = %v, want io.EOF", cut, err)
		}
	}
}

func TestFrameLimits(t *testing.T) {
	// A header declaring 20 MiB with nothing behind it: refused at once.
	fr := NewFrameReader(bytes.NewReader([]byte{0x01, 0x40, 0x00, 0x00}), 0)
	_, err := fr.ReadFrame()
	if !errors.Is(err, ErrFrameTooLarge) || !strings.Contains(err.Error(), "frame of 20 MiB exceeds limit 16 MiB") {
		t.Errorf("oversize: %v", err)
	}
	if cap(fr.buf) != 0 {
		t.Errorf("allocated %d bytes for a refused frame", cap(fr.buf))
	}
	if _, err := NewFrameReader(bytes.NewReader([]byte{0, 0, 0, 0}), 0).ReadFrame(); err == nil {
		t.Error("empty frame accepted")
	}
	_, err = NewFrameReader(bytes.NewReader([]byte{0, 0, 0, 9, 1, 2}), 0).ReadFrame()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut frame: %v", err)
	}
	if err := WriteFrame(io.Discard, make([]byte, 11), 10); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("write over limit: %v", err)
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add(AppendFrame(nil, []byte("hello")))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 3, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr := NewFrameReader(bytes.NewReader(b), 1<<16)
		total := 0
		for {
			p, err := fr.ReadFrame()
			if err != nil {
				break
			}
			total += 4 + len(p)
			if len(p) == 0 || len(p) > 1<<16 {
				t.Fatalf("frame of %d bytes", len(p))
			}
		}
		if total > len(b) {
			t.Fatalf("read %d bytes of frames from %d", total, len(b))
		}
	})
}
