package values

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// What a stream of frames (the rewind ring, a recording, a snapshot)
// keeps of a value on the game's time: a copy made within a bound of
// bytes and parts, converted later off the game goroutine, or, for a
// value past the bound, a line that names it and says why it is not kept.

// MaxKeptParts bounds the separate pieces (slice elements that hold
// pointers, map entries, pointees) of a value kept whole: each is copied
// on the game's time one by one, where plain memory is one memmove.
const MaxKeptParts = 16384

// NotKeptPrefix starts the string that stands for a value too big to keep.
const NotKeptPrefix = "not kept: "

// Kept is a value as a stream keeps it: Copy to convert later with Whole,
// or, when the value is past the bound, Note in its place.
type Kept struct {
	Copy  reflect.Value
	Note  protocol.Value
	Bytes int64 // what the copy holds, about
}

// Keep copies v if it holds at most protocol.MaxWholeResourceBytes in at
// most MaxKeptParts parts (a cycle or shared memory counted once, and
// copied once); else it makes the note that stands for it. What it costs
// is bounded by the bound, never by v.
func Keep(v reflect.Value) Kept {
	size, fits := Fits(v, protocol.MaxWholeResourceBytes, MaxKeptParts)
	if !fits {
		return Kept{Note: protocol.StringValue(NotKeptPrefix + Describe(v) + ": over the 4 MiB or 16,384 parts a frame keeps of one value; page it live")}
	}
	if c, ok := PlainCopy(v, 0); ok {
		return Kept{Copy: c, Bytes: size}
	}
	return Kept{Copy: Clone(v), Bytes: size}
}

// Value is the kept value in wire form: the copy converted (call it off
// the game goroutine), or the note.
func (k Kept) Value() protocol.Value {
	if k.Copy.IsValid() {
		return Whole(k.Copy)
	}
	return k.Note
}

// Describe names a value in brief by its type and size, looking no
// further than its top: "[]float64, 12,500,000 items, 95 MiB",
// "map[int]int, 1,000,000 entries".
func Describe(v reflect.Value) string {
	v = deref(v)
	if !v.IsValid() {
		return "nil"
	}
	t := v.Type()
	switch v.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return describeList(t, v.Len())
	case reflect.Struct:
		return describeStruct(v)
	}
	return t.String()
}

// describeStruct names a struct by its type and its fields that hold
// lists or maps, each by its own type and size (at most four):
// "game.Samples{Values: []float64, 2,000,000 items, 15.3 MiB}".
func describeStruct(v reflect.Value) string {
	t := v.Type()
	var parts []string
	for i := 0; i < t.NumField() && len(parts) < 4; i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Slice, reflect.Map, reflect.Array:
			if fv := v.Field(i); f.Type.Kind() == reflect.Array || !fv.IsNil() {
				parts = append(parts, f.Name+": "+describeList(f.Type, fv.Len()))
			}
		}
	}
	return fmt.Sprintf("%s{%s}", t, strings.Join(parts, "; "))
}

// describeList names a list or map of type t holding n items by its type
// and size: "[]float64, 12,500,000 items, 95.4 MiB" (the bytes where its
// items hold no pointers), "map[int]int, 1,000,000 entries".
func describeList(t reflect.Type, n int) string {
	if t.Kind() == reflect.Map {
		return fmt.Sprintf("%s, %s entries", t, count(n))
	}
	s := fmt.Sprintf("%s, %s items", t, count(n))
	if !HoldsPointers(t.Elem()) {
		s += ", " + protocol.ByteSize(int64(n)*int64(t.Elem().Size()))
	}
	return s
}

// count writes n with thousands separated: 12,500,000.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Budget converts the values of one frame or snapshot (a column's rows,
// a queue's events) within a bound for each value and one for all of
// them, by identity across them: memory that two rows share (a pooled
// slice, a node of a graph) shows whole at the first and as a repeat of
// it at the others ("↺ 42v1.Data"). Past the bound for all, a value is a
// note that names it.
type Budget struct {
	perValue, left int
	c              cut
}

// NewBudget makes a budget of perValue values for each value and total
// for all.
func NewBudget(perValue, total int) *Budget {
	return &Budget{perValue: perValue, left: total, c: cut{items: -1}}
}

// Convert converts v, found at at (how a repeat of what it holds names
// it: a handle's text for a row; "" where nothing can repeat it).
func (b *Budget) Convert(v reflect.Value, at string) protocol.Value {
	if b.left <= 0 {
		return protocol.StringValue(NotKeptPrefix + Describe(v) + ": past the values one frame converts")
	}
	b.c.left = min(b.perValue, b.left)
	before := b.c.made
	out := b.c.convert(v, 0, at, v.IsValid() && HoldsPointers(v.Type()))
	b.left -= b.c.made - before
	return out
}

// Made is how many values the budget's conversions made.
func (b *Budget) Made() int { return b.c.made }
