package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// Fast paths for the bulk of the bytes: values, page rows and snapshot
// tables are appended to a byte slice and parsed from one, by hand, instead
// of going through msgpack's reflection and its reader one byte at a time.
// What they write is plain msgpack, the same as the generic encoder would.

// appendArrayLen appends a msgpack array header.
func appendArrayLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x90|byte(n))
	case n <= math.MaxUint16:
		return append(b, 0xdc, byte(n>>8), byte(n))
	}
	return append(b, 0xdd, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendMapLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x80|byte(n))
	case n <= math.MaxUint16:
		return append(b, 0xde, byte(n>>8), byte(n))
	}
	return append(b, 0xdf, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendString(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, s...)
}

func appendUint(b []byte, u uint64) []byte {
	switch {
	case u < 128:
		return append(b, byte(u))
	case u <= math.MaxUint8:
		return append(b, 0xcc, byte(u))
	case u <= math.MaxUint16:
		return append(b, 0xcd, byte(u>>8), byte(u))
	case u <= math.MaxUint32:
		return append(b, 0xce, byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xcf), u)
}

func appendInt(b []byte, i int64) []byte {
	if i >= 0 {
		return appendUint(b, uint64(i))
	}
	switch {
	case i >= -32:
		return append(b, byte(i))
	case i >= math.MinInt8:
		return append(b, 0xd0, byte(i))
	case i >= math.MinInt16:
		return append(b, 0xd1, byte(i>>8), byte(i))
	case i >= math.MinInt32:
		return append(b, 0xd2, byte(i>>24), byte(i>>16), byte(i>>8), byte(i))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(i))
}

// appendValue appends v as msgpack.
func appendValue(b []byte, v *Value) []byte {
	switch v.kind {
	case KindBool:
		if v.bits == 1 {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case KindInt:
		return appendInt(b, int64(v.bits))
	case KindUint:
		return appendUint(b, v.bits)
	case KindFloat:
		if v.IsFloat32() {
			return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(float32(v.Float())))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcb), v.bits)
	case KindString:
		return appendString(b, v.s())
	case KindBytes:
		switch n := len(v.s()); {
		case n <= math.MaxUint8:
			b = append(b, 0xc4, byte(n))
		case n <= math.MaxUint16:
			b = append(b, 0xc5, byte(n>>8), byte(n))
		default:
			b = append(b, 0xc6, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		}
		return append(b, v.s()...)
	case KindList:
		b = appendArrayLen(b, len(v.items()))
	case KindMap:
		b = appendMapLen(b, len(v.items())/2)
	default:
		return append(b, 0xc0)
	}
	for i := range v.items() {
		b = appendValue(b, &v.items()[i])
	}
	return b
}

var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// writeAppended runs fill on a pooled buffer and writes the result to enc
// in one call.
func writeAppended(enc *msgpack.Encoder, fill func([]byte) []byte) error {
	p := scratch.Get().(*[]byte)
	b := fill((*p)[:0])
	_, err := enc.Writer().Write(b)
	if cap(b) <= 1<<20 {
		*p = b
		scratch.Put(p)
	}
	return err
}

// reader parses msgpack from a byte slice; the first error sticks. Lists
// and maps of values are carved from a shared arena, and map keys are
// interned, so a page of a thousand rows costs a handful of allocations.
type reader struct {
	b      []byte
	pos    int
	err    error
	arena  []Value
	intern map[string]string
}

// values returns n zero values from the arena.
func (r *reader) values(n int) []Value {
	if n == 0 {
		return nil
	}
	if n > 256 {
		return make([]Value, n)
	}
	if len(r.arena) < n {
		// Every value left takes at least a byte: no need for more.
		r.arena = make([]Value, max(n, min(1024, len(r.b)-r.pos+n)))
	}
	out := r.arena[:n:n]
	r.arena = r.arena[n:]
	return out
}

// key reads a map key, interned: keys repeat in every row.
func (r *reader) key() string {
	c := r.byte()
	if c&0xe0 != 0xa0 {
		r.pos--
		return r.str()
	}
	raw := r.take(int(c & 0x1f))
	if s, ok := r.intern[string(raw)]; ok {
		return s
	}
	if r.intern == nil {
		r.intern = map[string]string{}
	}
	s := string(raw)
	if len(r.intern) < 256 {
		r.intern[s] = s
	}
	return s
}

var errShort = errors.New("protocol: message ends early")

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *reader) byte() byte {
	if r.pos >= len(r.b) {
		r.fail(errShort)
		return 0xc0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *reader) take(n int) []byte {
	if n < 0 || n > len(r.b)-r.pos {
		r.fail(errShort)
		r.pos = len(r.b)
		return nil
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s
}

func (r *reader) be(n int) uint64 {
	s := r.take(n)
	var u uint64
	for _, c := range s {
		u = u<<8 | uint64(c)
	}
	return u
}

// containerLen reads an array (want 0x90) or map (want 0x80) header.
func (r *reader) containerLen(isMap bool) int {
	c := r.byte()
	fix, c16, c32 := byte(0x90), byte(0xdc), byte(0xdd)
	if isMap {
		fix, c16, c32 = 0x80, 0xde, 0xdf
	}
	switch {
	case c&0xf0 == fix:
		return int(c & 0x0f)
	case c == c16:
		return int(r.be(2))
	case c == c32:
		return int(r.be(4))
	case c == 0xc0:
		return 0
	}
	r.fail(fmt.Errorf("protocol: expected a %s, got code 0x%02x", map[bool]string{false: "list", true: "map"}[isMap], c))
	return 0
}

func (r *reader) str() string {
	c := r.byte()
	var n int
	switch {
	case c&0xe0 == 0xa0:
		n = int(c & 0x1f)
	case c == 0xd9:
		n = int(r.be(1))
	case c == 0xda:
		n = int(r.be(2))
	case c == 0xdb:
		n = int(r.be(4))
	case c == 0xc0:
		return ""
	default:
		r.fail(fmt.Errorf("protocol: expected a string, got code 0x%02x", c))
		return ""
	}
	return string(r.take(n))
}

// value parses any msgpack value.
func (r *reader) value(depth int) Value {
	if depth > maxDepth {
		r.fail(fmt.Errorf("protocol: value nested deeper than %d", maxDepth))
		return Value{}
	}
	c := r.byte()
	switch {
	case c <= 0x7f:
		return IntValue(int64(c))
	case c >= 0xe0:
		return IntValue(int64(int8(c)))
	case c&0xe0 == 0xa0, c == 0xd9, c == 0xda, c == 0xdb:
		r.pos--
		return StringValue(r.str())
	case c&0xf0 == 0x90, c == 0xdc, c == 0xdd:
		r.pos--
		n := r.containerLen(false)
		if n > len(r.b)-r.pos {
			r.fail(errShort)
			return Value{}
		}
		l := r.values(n)
		for i := range l {
			l[i] = r.value(depth + 1)
		}
		return makeItems(KindList, l)
	case c&0xf0 == 0x80, c == 0xde, c == 0xdf:
		r.pos--
		n := r.containerLen(true)
		if 2*n > len(r.b)-r.pos {
			r.fail(errShort)
			return Value{}
		}
		l := r.values(2 * n)
		for i := 0; i < len(l); i += 2 {
			l[i] = StringValue(r.key())
			l[i+1] = r.value(depth + 1)
		}
		return makeItems(KindMap, l)
	}
	switch c {
	case 0xc0:
		return Value{}
	case 0xc2:
		return BoolValue(false)
	case 0xc3:
		return BoolValue(true)
	case 0xca:
		return Float32Value(math.Float32frombits(uint32(r.be(4))))
	case 0xcb:
		return FloatValue(math.Float64frombits(r.be(8)))
	case 0xcc:
		return IntValue(int64(r.be(1)))
	case 0xcd:
		return IntValue(int64(r.be(2)))
	case 0xce:
		return IntValue(int64(r.be(4)))
	case 0xcf:
		return UintValue(r.be(8))
	case 0xd0:
		return IntValue(int64(int8(r.be(1))))
	case 0xd1:
		return IntValue(int64(int16(r.be(2))))
	case 0xd2:
		return IntValue(int64(int32(r.be(4))))
	case 0xd3:
		return IntValue(int64(r.be(8)))
	case 0xc4:
		return BytesValue(r.take(int(r.be(1))))
	case 0xc5:
		return BytesValue(r.take(int(r.be(2))))
	case 0xc6:
		return BytesValue(r.take(int(r.be(4))))
	}
	r.fail(fmt.Errorf("protocol: unsupported msgpack code 0x%02x in a value", c))
	return Value{}
}

// int reads a whole number that fits an int.
func (r *reader) int() int {
	v := r.value(maxDepth)
	switch v.kind {
	case KindInt:
		if n := int64(v.bits); n == int64(int(n)) {
			return int(n)
		}
	case KindUint:
		if v.bits <= math.MaxInt {
			return int(v.bits)
		}
	case KindNil:
		return 0
	}
	r.fail(fmt.Errorf("protocol: expected a whole number, got %v", v))
	return 0
}

// uint reads an unsigned integer (a non-negative int too).
func (r *reader) uint() uint64 {
	v := r.value(maxDepth)
	switch v.kind {
	case KindInt:
		if int64(v.bits) >= 0 {
			return v.bits
		}
	case KindUint:
		return v.bits
	case KindNil:
		return 0
	}
	r.fail(fmt.Errorf("protocol: expected an unsigned integer, got %v", v))
	return 0
}

// decodeRaw gives fn a reader over the next value of dec.
func decodeRaw(dec *msgpack.Decoder, fn func(r *reader) error) error {
	raw, err := dec.DecodeRaw()
	if err != nil {
		return err
	}
	r := &reader{b: raw}
	if err := fn(r); err != nil {
		return err
	}
	return r.err
}
