package protocol

import "sync"

// Coding's intermediates (a column's values XORed or predicted before
// they are laid out in planes, a list of handles as bytes) are dropped as
// soon as the planes are made: they are borrowed here instead of made, as
// fresh memory is zeroed first (a third of the time coding a frame of the
// 100k demo took).
var scratchBufs = sync.Pool{New: func() any { return new([]byte) }}

// borrowScratch lends a buffer of n bytes whose contents are whatever they
// were: the borrower writes every byte before reading it, and gives it
// back with returnScratch once nothing refers to it.
func borrowScratch(n int) *[]byte {
	p := scratchBufs.Get().(*[]byte)
	if cap(*p) < n {
		*p = make([]byte, n)
	}
	*p = (*p)[:n]
	return p
}

// returnScratch gives a borrowed buffer back.
func returnScratch(p *[]byte) { scratchBufs.Put(p) }

// Arena hands out the byte slices of one frame's coding from memory it
// keeps from frame to frame: the coder resets it when the frame is sealed
// and nothing refers to them any more. A slice it hands out is empty, with
// room for the bytes asked for, and room from a frame before is not
// zeroed: whatever appends to it writes every byte it then holds.
type Arena struct {
	buf []byte
	off int
}

// Room returns an empty slice with room for n bytes.
func (a *Arena) Room(n int) []byte {
	if a == nil {
		return make([]byte, 0, n)
	}
	if a.off+n > cap(a.buf) {
		// The frame's slices so far keep the old memory; the next frame
		// has room for all of this one's.
		a.buf, a.off = make([]byte, max(2*cap(a.buf), a.off+n)), 0
	}
	s := a.buf[a.off : a.off : a.off+n]
	a.off += n
	return s
}

// Reset makes all the arena's memory free for the next frame.
func (a *Arena) Reset() { a.off = 0 }
