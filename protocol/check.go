package protocol

import (
	"encoding/binary"
	"fmt"
)

// checkMsgpack walks one msgpack value at the start of b without decoding
// it and returns its encoded size. It rejects, before any decoder sees the
// bytes, what would make a decoder allocate from a declared length
// (msgpack/v5 makes a slice, map or string of the declared size up front):
//   - a declared string, binary or extension longer than the bytes left;
//   - an array of N declared elements with fewer than N bytes left (each
//     element takes at least one), a map of N entries with fewer than 2N;
//   - nesting deeper than maxDepth;
//   - an estimate of what decoding would allocate over budget bytes, counting
//     64 bytes per array element and 128 per map entry, so that a frame of
//     one-byte elements cannot decode into a slice of large structs.
func checkMsgpack(b []byte, maxDepth int, budget int64) (int, error) {
	type level struct{ left uint64 }
	stack := make([]level, 0, 8)
	pos := 0
	var alloc int64
	need := func(n uint64) error {
		if n > uint64(len(b)-pos) {
			return fmt.Errorf("protocol: malformed msgpack at byte %d: declares %d bytes, %d left", pos, n, len(b)-pos)
		}
		return nil
	}
	readLen := func(size int) (uint64, error) {
		if err := need(uint64(size)); err != nil {
			return 0, err
		}
		var n uint64
		switch size {
		case 1:
			n = uint64(b[pos])
		case 2:
			n = uint64(binary.BigEndian.Uint16(b[pos:]))
		case 4:
			n = uint64(binary.BigEndian.Uint32(b[pos:]))
		}
		pos += size
		return n, nil
	}
	for {
		if err := need(1); err != nil {
			return 0, err
		}
		c := b[pos]
		pos++
		var skip uint64 // payload bytes to skip
		var children uint64
		container := false
		var err error
		switch {
		case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3: // fixints, nil, bools
		case c >= 0x80 && c <= 0x8f:
			children, container = 2*uint64(c&0x0f), true
		case c >= 0x90 && c <= 0x9f:
			children, container = uint64(c&0x0f), true
		case c >= 0xa0 && c <= 0xbf:
			skip = uint64(c & 0x1f)
		case c == 0xc1:
			return 0, fmt.Errorf("protocol: malformed msgpack at byte %d: reserved code 0xc1", pos-1)
		case c == 0xc4 || c == 0xd9: // bin8, str8
			skip, err = readLen(1)
		case c == 0xc5 || c == 0xda: // bin16, str16
			skip, err = readLen(2)
		case c == 0xc6 || c == 0xdb: // bin32, str32
			skip, err = readLen(4)
		case c == 0xc7: // ext8
			skip, err = readLen(1)
			skip++
		case c == 0xc8:
			skip, err = readLen(2)
			skip++
		case c == 0xc9:
			skip, err = readLen(4)
			skip++
		case c == 0xca:
			skip = 4
		case c == 0xcb:
			skip = 8
		case c == 0xcc || c == 0xd0:
			skip = 1
		case c == 0xcd || c == 0xd1:
			skip = 2
		case c == 0xce || c == 0xd2:
			skip = 4
		case c == 0xcf || c == 0xd3:
			skip = 8
		case c >= 0xd4 && c <= 0xd8: // fixext 1, 2, 4, 8, 16 plus the type byte
			skip = 1 + 1<<(c-0xd4)
		case c == 0xdc:
			children, err = readLen(2)
			container = true
		case c == 0xdd:
			children, err = readLen(4)
			container = true
		case c == 0xde:
			children, err = readLen(2)
			children *= 2
			container = true
		case c == 0xdf:
			children, err = readLen(4)
			children *= 2
			container = true
		}
		if err != nil {
			return 0, err
		}
		if err := need(skip); err != nil {
			return 0, err
		}
		pos += int(skip)
		alloc += int64(skip)
		if container {
			if err := need(children); err != nil {
				return 0, err
			}
			alloc += int64(children) * 64
			if alloc > budget {
				return 0, fmt.Errorf("protocol: msgpack value would decode into more than %s", ByteSize(budget))
			}
			if children > 0 {
				if len(stack) >= maxDepth {
					return 0, fmt.Errorf("protocol: msgpack nested deeper than %d", maxDepth)
				}
				stack = append(stack, level{left: children})
				continue
			}
		}
		if alloc > budget {
			return 0, fmt.Errorf("protocol: msgpack value would decode into more than %s", ByteSize(budget))
		}
		// One value done: pop finished containers.
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			top.left--
			if top.left > 0 {
				break
			}
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return pos, nil
		}
	}
}
