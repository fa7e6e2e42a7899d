package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Packed lanes (a ColumnFrame's Packed). Predicted lanes are mostly small
// numbers and often zero: in byte planes every lane still takes every
// byte, and the block coder spends a bit or more on each zero. Packed,
// each lane says its length in a few bits (a control stream) and only its
// low bytes that are not zero follow, byte planes of the lanes long enough
// to have that byte: a value the prediction got right costs its length
// code alone. Lanes of 4 bytes take 2 bits (lengths 0, 1, 2 and 4: a
// 3-byte lane is written as 4), four to a control byte, the first lane in
// the low bits; lanes of 8 bytes take 4 bits (lengths 0 to 8), two to a
// byte. Then plane k: byte k of every lane longer than k, in lane order.
// The last control byte's unused bits are zero.

// lane4Bytes is the byte length of a 4-byte lane's 2-bit code.
var lane4Bytes = [4]int{0, 1, 2, 4}

// AppendPacked appends vals (values of size bytes each) coded against
// their prediction as AppendPredicted codes them (lane 4 or 8, dividing
// size), the coded lanes packed by length.
func AppendPacked(dst, vals, base, prev []byte, size, lane int) []byte {
	return appendCoded(dst, vals, base, prev, size, lane, func(dst, x []byte) []byte { return appendPackedLanes(dst, x, lane) })
}

// UndoPacked turns coded (lanes packed as AppendPacked packs them) back
// into values, written into out, which holds exactly the values coded
// (len(out)/lane lanes). It fails, leaving out's content undefined, when
// coded does not pack that many lanes.
func UndoPacked(out, coded, base, prev []byte, lane int) error {
	if err := unpackLanes(out, coded, lane); err != nil {
		return err
	}
	unpredict(out, base, prev, lane)
	return nil
}

// PackedMost is the most bytes AppendPacked appends for n bytes of
// values in lanes of lane bytes: every lane whole, and its length.
func PackedMost(n, lane int) int { return n + packedControlLen(n/lane, lane) }

// packedControlLen is the control stream's bytes for lanes lanes.
func packedControlLen(lanes, lane int) int {
	if lane == 8 {
		return (lanes + 1) / 2
	}
	return (lanes + 3) / 4
}

// appendPackedLanes appends x's lanes (lane bytes each, little-endian)
// packed: the control stream, then the planes of their low bytes.
func appendPackedLanes(dst, x []byte, lane int) []byte {
	if lane == 4 {
		return appendPacked4(dst, x)
	}
	lanes := len(x) / 8
	ctrl := packedControlLen(lanes, 8)
	start := len(dst)
	dst = append(dst, make([]byte, ctrl)...)
	longer := packLengths8(dst[start:start+ctrl], x)
	at, total := planeStarts(longer, start+ctrl, 8) // where plane k's next byte goes
	dst = append(dst, make([]byte, total-len(dst))...)
	c := dst[start : start+ctrl]
	for i := range lanes {
		v := x[8*i : 8*i+8 : 8*i+8]
		for k := range packedLen(c, i, 8) {
			dst[at[k]] = v[k]
			at[k]++
		}
	}
	return dst
}

// appendPacked4 packs lanes of 4 bytes without a branch on a lane's
// length: every lane's bytes are written at the planes' next places (in
// buffers one longer than the most a plane takes) and the places move on
// only for the bytes the lane keeps; the planes are then appended.
func appendPacked4(dst, x []byte) []byte {
	lanes := len(x) / 4
	ctrl := packedControlLen(lanes, 4)
	buf := borrowScratch(4*lanes + 4)
	defer returnScratch(buf)
	b := *buf
	w := lanes + 1
	p0, p1, p2, p3 := b[:w:w], b[w:2*w:2*w], b[2*w:3*w:3*w], b[3*w:4*w:4*w]
	start := len(dst)
	dst = append(dst, make([]byte, ctrl)...)
	c := dst[start:]
	le := binary.LittleEndian
	a0, a1, a2 := 0, 0, 0
	var codes uint32
	for i := range lanes {
		z := le.Uint32(x[4*i:])
		n := uint32(bits.Len32(z)+7) >> 3 // 0 to 4 bytes
		code := n - n>>2                  // 4 bytes: code 3
		codes |= code << (2 * (i & 3))
		if i&3 == 3 {
			c[i>>2], codes = byte(codes), 0
		}
		p0[a0], p1[a1], p2[a2], p3[a2] = byte(z), byte(z>>8), byte(z>>16), byte(z>>24)
		a0 += int((code + 3) >> 2)
		a1 += int((code + 2) >> 2)
		a2 += int((code + 1) >> 2)
	}
	if lanes&3 != 0 {
		c[lanes>>2] = byte(codes)
	}
	return append(append(append(append(dst, p0[:a0]...), p1[:a1]...), p2[:a2]...), p3[:a2]...)
}

// packLengths8 writes each 8-byte lane's length code of x into c,
// returning how many lanes are longer than each byte count.
func packLengths8(c, x []byte) (longer [8]int) {
	for i := range len(x) / 8 {
		l := (bits.Len64(binary.LittleEndian.Uint64(x[8*i:])) + 7) / 8
		c[i>>1] |= byte(l) << (4 * (i & 1))
		for k := range l {
			longer[k]++
		}
	}
	return longer
}

// planeStarts is where each of lane planes starts, from the first at
// from, given how many lanes are longer than each byte count, and where
// the last ends.
func planeStarts(longer [8]int, from, lane int) (at [8]int, end int) {
	end = from
	for k := range lane {
		at[k] = end
		end += longer[k]
	}
	return at, end
}

// packedLen is the byte length of lane i as the control stream c says.
func packedLen(c []byte, i, lane int) int {
	if lane == 8 {
		return int(c[i>>1] >> (4 * (i & 1)) & 15)
	}
	return lane4Bytes[c[i>>2]>>(2*(i&3))&3]
}

// unpackLanes writes the lanes packed in coded into out (len(out)/lane
// lanes), checking that coded holds exactly those lanes.
func unpackLanes(out, coded []byte, lane int) error {
	if lane != 4 && lane != 8 {
		return fmt.Errorf("packed lanes of %d bytes", lane)
	}
	lanes := len(out) / lane
	ctrl := packedControlLen(lanes, lane)
	if len(coded) < ctrl {
		return fmt.Errorf("packed lanes: %d bytes, fewer than the %d of the lengths of %d lanes", len(coded), ctrl, lanes)
	}
	c := coded[:ctrl]
	if used := lanes * (lane / 2) % 8; used != 0 && c[ctrl-1]>>used != 0 {
		return errors.New("packed lanes: lengths past the last lane")
	}
	var longer [8]int
	if lane == 4 {
		longer = lengths4(c)
	} else {
		for i := range lanes {
			l := packedLen(c, i, lane)
			if l > lane {
				return fmt.Errorf("packed lanes: a lane of %d bytes in lanes of %d", l, lane)
			}
			for k := range l {
				longer[k]++
			}
		}
	}
	at, total := planeStarts(longer, ctrl, lane)
	if total != len(coded) {
		return fmt.Errorf("packed lanes: %d bytes where their lengths say %d", len(coded), total)
	}
	if lane == 4 {
		unpackLanes4(out, coded, at)
		return nil
	}
	clear(out)
	for i := range lanes {
		v := out[8*i : 8*i+8 : 8*i+8]
		for k := range packedLen(c, i, 8) {
			v[k] = coded[at[k]]
			at[k]++
		}
	}
	return nil
}

// lengths4 counts the lanes of 4 bytes longer than 0, 1, 2 and 3 bytes in
// a control stream (unused codes are zero, so they count as none): a
// code's high bit says 2 bytes or more, either bit 1 or more, both 4.
func lengths4(c []byte) (longer [8]int) {
	const lo = 0x5555555555555555
	count := func(w uint64) {
		longer[0] += bits.OnesCount64((w | w>>1) & lo)
		longer[1] += bits.OnesCount64(w & (lo << 1))
		longer[2] += bits.OnesCount64(w & (w >> 1) & lo)
	}
	i := 0
	for ; i+8 <= len(c); i += 8 {
		count(binary.LittleEndian.Uint64(c[i:]))
	}
	for ; i < len(c); i++ {
		count(uint64(c[i]))
	}
	longer[3] = longer[2]
	return longer
}

// unpackLanes4 writes lanes of 4 bytes packed in coded (checked: plane k
// starts at at[k]) into out, without a branch on a lane's length: each
// plane's next byte is read whatever the length (from a copy of coded one
// byte longer, so the last plane's next byte exists) and kept or not.
func unpackLanes4(out, coded []byte, at [8]int) {
	p := borrowScratch(len(coded) + 1)
	defer returnScratch(p)
	b := (*p)[:len(coded)+1]
	copy(b, coded)
	b[len(coded)] = 0
	le := binary.LittleEndian
	i0, i1, i2 := at[0], at[1], at[2]
	d3 := at[3] - at[2] // planes 2 and 3 hold the same lanes
	lanes := len(out) / 4
	q := 0
	for ; 4*q+4 <= lanes; q++ { // four lanes a control byte, with no chain from one lane to the next
		g := &groups4[b[q]]
		o := out[16*q : 16*q+16 : 16*q+16]
		for j := range 4 {
			k2 := i2 + int(g.at2[j])
			v := uint32(b[i0+int(g.at0[j])]) | uint32(b[i1+int(g.at1[j])])<<8 | uint32(b[k2])<<16 | uint32(b[k2+d3])<<24
			le.PutUint32(o[4*j:], v&g.mask[j])
		}
		i0, i1, i2 = i0+int(g.n0), i1+int(g.n1), i2+int(g.n2)
	}
	if 4*q < lanes { // the last control byte's lanes
		g := &groups4[b[q]]
		for j := range lanes - 4*q {
			k2 := i2 + int(g.at2[j])
			v := uint32(b[i0+int(g.at0[j])]) | uint32(b[i1+int(g.at1[j])])<<8 | uint32(b[k2])<<16 | uint32(b[k2+d3])<<24
			le.PutUint32(out[16*q+4*j:], v&g.mask[j])
		}
	}
}

// group4 is what a control byte of lanes of 4 says of its four lanes:
// each lane's place among the group's bytes in planes 0, 1 and 2 (the
// group's bytes before it there; plane 3 as plane 2), the mask of the
// bytes it keeps, and how many bytes the group takes in each plane.
type group4 struct {
	at0, at1, at2 [4]uint8
	mask          [4]uint32
	n0, n1, n2    uint8
}

// groups4 is group4 for every control byte.
var groups4 = func() (t [256]group4) {
	for cb := range t {
		g := &t[cb]
		for j := range 4 {
			code := cb >> (2 * j) & 3
			g.at0[j], g.at1[j], g.at2[j] = g.n0, g.n1, g.n2
			l := lane4Bytes[code]
			g.mask[j] = uint32(uint64(1)<<(8*l) - 1)
			if l >= 1 {
				g.n0++
			}
			if l >= 2 {
				g.n1++
			}
			if l == 4 {
				g.n2++
			}
		}
	}
	return t
}()
