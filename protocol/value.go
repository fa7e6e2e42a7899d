package protocol

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/vmihailenco/msgpack/v5"
)

// ValueKind says which field of a [Value] holds it.
type ValueKind uint8

// Value kinds.
const (
	KindNil ValueKind = iota
	KindBool
	KindInt
	KindUint
	KindFloat
	KindString
	KindBytes
	KindList
	KindMap
)

// Value is a component value, or part of one, as it travels: a msgpack
// scalar, a list, or a map keyed by field name (in field order), so a client
// that has never seen the Go type can show and edit it. It is decoded by
// hand, never into any, after the frame passed the length checks, and it is
// small, 24 bytes: a snapshot of a million entities holds tens of millions.
type Value struct {
	p    unsafe.Pointer // string bytes, or the first item of a list or map
	bits uint64         // bool, int, uint, float64 bits; the length of a string, list or map's items
	kind ValueKind
}

// makeString and makeItems build the reference kinds; s and items read them.
func makeString(k ValueKind, s string) Value {
	return Value{kind: k, p: unsafe.Pointer(unsafe.StringData(s)), bits: uint64(len(s))}
}

func makeItems(k ValueKind, items []Value) Value {
	return Value{kind: k, p: unsafe.Pointer(unsafe.SliceData(items)), bits: uint64(len(items))}
}

// s returns the string of a string or bytes value.
func (v *Value) s() string {
	if (v.kind != KindString && v.kind != KindBytes) || v.p == nil {
		return ""
	}
	return unsafe.String((*byte)(v.p), int(v.bits))
}

// items returns a list's items, or a map's keys and values alternately.
func (v *Value) items() []Value {
	if (v.kind != KindList && v.kind != KindMap) || v.p == nil {
		return nil
	}
	return unsafe.Slice((*Value)(v.p), int(v.bits))
}

// Field is one named entry of a map [Value], for building one.
type Field struct {
	Name  string
	Value Value
}

// Nil is the nil value.
func Nil() Value { return Value{} }

// BoolValue makes a bool value.
func BoolValue(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.bits = 1
	}
	return v
}

// IntValue makes an integer value.
func IntValue(i int64) Value { return Value{kind: KindInt, bits: uint64(i)} }

// UintValue makes an unsigned integer value. Values that fit an int64 are
// ints, as they are when decoded: one number, one representation.
func UintValue(u uint64) Value {
	if u <= math.MaxInt64 {
		return IntValue(int64(u))
	}
	return Value{kind: KindUint, bits: u}
}

// FloatValue makes a float value.
func FloatValue(f float64) Value { return Value{kind: KindFloat, bits: math.Float64bits(f)} }

// single marks a float value that came from a float32: it prints as the
// shortest decimal that is that float32 (797.30426, not 797.3042602539062)
// and travels as a msgpack float32, so nothing is lost either way.
var single byte

// Float32Value makes a float value that remembers it is a float32.
func Float32Value(f float32) Value {
	return Value{kind: KindFloat, bits: math.Float64bits(float64(f)), p: unsafe.Pointer(&single)}
}

// IsFloat32 reports whether v is a float that came from a float32.
func (v Value) IsFloat32() bool { return v.kind == KindFloat && v.p == unsafe.Pointer(&single) }

// StringValue makes a string value.
func StringValue(s string) Value { return makeString(KindString, s) }

// BytesValue makes a binary value.
func BytesValue(b []byte) Value { return makeString(KindBytes, string(b)) }

// ListValue makes a list.
func ListValue(items ...Value) Value { return makeItems(KindList, items) }

// MapValue makes a map of named fields, in order.
func MapValue(fields ...Field) Value {
	if len(fields) == 0 {
		return Value{kind: KindMap}
	}
	l := make([]Value, 0, 2*len(fields))
	for _, f := range fields {
		l = append(l, StringValue(f.Name), f.Value)
	}
	return makeItems(KindMap, l)
}

// Kind says what v holds.
func (v Value) Kind() ValueKind { return v.kind }

// Bool returns a bool value (false for other kinds).
func (v Value) Bool() bool { return v.kind == KindBool && v.bits == 1 }

// Int returns an integer value: an int, or a uint that fits an int64 (0
// for other kinds).
func (v Value) Int() int64 {
	if v.kind == KindInt || v.kind == KindUint && v.bits <= math.MaxInt64 {
		return int64(v.bits)
	}
	return 0
}

// Uint returns an unsigned value: a uint, or an int that is not negative
// (0 for other kinds). Entity handles decode either way.
func (v Value) Uint() uint64 {
	if v.kind == KindUint || v.kind == KindInt && int64(v.bits) >= 0 {
		return v.bits
	}
	return 0
}

// Float returns a float value (0 for other kinds).
func (v Value) Float() float64 {
	if v.kind == KindFloat {
		return math.Float64frombits(v.bits)
	}
	return 0
}

// Str returns a string value ("" for other kinds).
func (v Value) Str() string {
	if v.kind == KindString {
		return v.s()
	}
	return ""
}

// Bytes returns a binary value.
func (v Value) Bytes() []byte {
	if v.kind == KindBytes {
		return []byte(v.s())
	}
	return nil
}

// Len is the number of items of a list or entries of a map.
func (v Value) Len() int {
	switch v.kind {
	case KindList:
		return len(v.items())
	case KindMap:
		return len(v.items()) / 2
	}
	return 0
}

// Index returns item i of a list.
func (v Value) Index(i int) Value { return v.items()[i] }

// Entry returns entry i of a map: its name and value.
func (v Value) Entry(i int) (string, Value) { l := v.items(); return l[2*i].s(), l[2*i+1] }

// Get returns the map entry name, if v is a map that has it.
func (v Value) Get(name string) (Value, bool) {
	if v.kind != KindMap {
		return Value{}, false
	}
	l := v.items()
	for i := 0; i+1 < len(l); i += 2 {
		if l[i].s() == name {
			return l[i+1], true
		}
	}
	return Value{}, false
}

// Number returns v as a float64 if it is a number.
func (v Value) Number() (float64, bool) {
	switch v.kind {
	case KindInt:
		return float64(int64(v.bits)), true
	case KindUint:
		return float64(v.bits), true
	case KindFloat:
		return math.Float64frombits(v.bits), true
	}
	return 0, false
}

// Equal reports whether two values are the same.
func (v Value) Equal(o Value) bool {
	if v.kind != o.kind {
		return false
	}
	switch v.kind {
	case KindString, KindBytes:
		return v.s() == o.s()
	case KindList, KindMap:
		return equalValues(v.items(), o.items())
	}
	return v.bits == o.bits
}

// Interface returns v as plain Go: nil, bool, int64, uint64, float64,
// string, []byte, []any or map[string]any, for code that takes those, such
// as a field setter.
func (v Value) Interface() any { return v.plain(false) }

// plain is Interface; with keep32 a float32 stays a float32 (JSON then
// writes it as its shortest decimal).
func (v Value) plain(keep32 bool) any {
	switch v.kind {
	case KindBool:
		return v.Bool()
	case KindInt:
		return v.Int()
	case KindUint:
		return v.Uint()
	case KindFloat:
		if keep32 && v.IsFloat32() {
			return float32(v.Float())
		}
		return v.Float()
	case KindString:
		return v.s()
	case KindBytes:
		return v.Bytes()
	case KindList:
		out := make([]any, len(v.items()))
		for i, e := range v.items() {
			out[i] = e.plain(keep32)
		}
		return out
	case KindMap:
		out := make(map[string]any, v.Len())
		for i := range v.Len() {
			k, e := v.Entry(i)
			out[k] = e.plain(keep32)
		}
		return out
	}
	return nil
}

// String prints v compactly: 3.5, "orc", [1 2], {X:1 Y:2}; strings and
// keys with their control characters escaped, so it is safe on a terminal.
func (v Value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v Value) write(b *strings.Builder) {
	switch v.kind {
	case KindNil:
		b.WriteString("nil")
	case KindBool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case KindInt:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case KindUint:
		b.WriteString(strconv.FormatUint(v.bits, 10))
	case KindFloat:
		if v.IsFloat32() {
			b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 32))
		} else {
			b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
		}
	case KindString:
		b.WriteString(strconv.Quote(v.s()))
	case KindBytes:
		fmt.Fprintf(b, "%x", v.s())
	case KindList:
		b.WriteByte('[')
		for i, e := range v.items() {
			if i > 0 {
				b.WriteByte(' ')
			}
			e.write(b)
		}
		b.WriteByte(']')
	case KindMap:
		b.WriteByte('{')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(' ')
			}
			k, e := v.Entry(i)
			b.WriteString(printable.Text(k))
			b.WriteByte(':')
			e.write(b)
		}
		b.WriteByte('}')
	}
}

var (
	_ msgpack.CustomEncoder = (*Value)(nil)
	_ msgpack.CustomDecoder = (*Value)(nil)
)

// EncodeMsgpack writes v as plain msgpack.
func (v *Value) EncodeMsgpack(enc *msgpack.Encoder) error {
	return writeAppended(enc, func(b []byte) []byte { return appendValue(b, v) })
}

// DecodeMsgpack reads any msgpack value into v; map keys must be strings.
func (v *Value) DecodeMsgpack(dec *msgpack.Decoder) error {
	return decodeRaw(dec, func(r *reader) error {
		*v = r.value(0)
		return nil
	})
}

// MarshalJSON writes the value as JSON: maps as objects, lists as arrays.
func (v Value) MarshalJSON() ([]byte, error) { return json.Marshal(v.plain(true)) }
