package values

import (
	"fmt"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Conversion: a Go value into its wire form, within a budget of values
// made and by identity, so that a value of any shape converts in time
// proportional to what is shown: a pointer graph with cycles, a slice or
// map shared by two fields, a grid of a million cells.

// MaxDepth stops a conversion this many levels down (a linked list
// thousands long); what is deeper shows as a string that says so.
const MaxDepth = 16

const (
	// MaxItems bounds the items of one list or map in a frame.
	MaxItems = 64
	// PreviewItems and PreviewValues bound a Preview.
	PreviewItems  = 8
	PreviewValues = 24
	// MaxOfValues bounds the values one Of makes.
	MaxOfValues = 1 << 14
	// MaxWholeValues bounds the values one Whole makes.
	MaxWholeValues = 1 << 20
)

// Of turns a Go value of a component (or event, resource) into its wire
// form: structs as maps of exported fields, arrays and slices as lists,
// entities as handles, maps as maps keyed by text in key order (see
// Keys). Lists and maps longer than MaxItems are cut there, with a last
// string item saying how many were left out, and at most MaxOfValues
// values are made in all; a pointee, map or list met a second time (a
// cycle, or memory two fields share) shows as a Repeat of where it showed
// first.
func Of(v reflect.Value) protocol.Value { return Convert(v, MaxItems, MaxOfValues) }

// Whole is Of without the cut per list, for snapshots and recordings:
// at most MaxWholeValues values, the rest counted as cut.
func Whole(v reflect.Value) protocol.Value { return Convert(v, -1, MaxWholeValues) }

// Preview is a value in brief, for one line of a resource page: at most
// PreviewItems items a list and PreviewValues values in all, the rest
// counted in a "… N more" item.
func Preview(v reflect.Value) protocol.Value { return Convert(v, PreviewItems, PreviewValues) }

// Convert turns v into its wire form keeping at most items items of each
// list or map (-1: all) and making at most values values in all.
func Convert(v reflect.Value, items, values int) protocol.Value {
	c := cut{items: items, left: values}
	return c.convert(v, 0, "", v.IsValid() && HoldsPointers(v.Type()))
}

// ConvertCounted is Convert that also says how many values it made: what
// the agent counts as its work on the game's time.
func ConvertCounted(v reflect.Value, items, values int) (protocol.Value, int) {
	c := cut{items: items, left: values}
	out := c.convert(v, 0, "", v.IsValid() && HoldsPointers(v.Type()))
	return out, c.made
}

// RepeatPrefix starts the string that stands for a value met again in one
// conversion: "↺ " and the path where it showed first ("" for the value
// itself; a path as protocol.ParsePath reads it).
const RepeatPrefix = "↺ "

// cut is one conversion's bounds and memory: items per list or map (-1:
// all), values left to make, and where each pointee, map and list that
// may be reached twice showed first.
type cut struct {
	items, left int
	made        int
	seen        map[identity]string
}

// identity is a piece of the game's memory as a conversion meets it: its
// address and type, and for a list its length.
type identity struct {
	p uintptr
	t uintptr // the type's descriptor: a scalar hashes several times faster than a reflect.Type
	n int
}

// identityOf is v's identity, n its length for a list (else 0).
func identityOf(v reflect.Value, n int) identity {
	t := v.Type()
	return identity{v.Pointer(), (*[2]uintptr)(unsafe.Pointer(&t))[1], n}
}

// room is how many of n items a list or map keeps.
func (c *cut) room(n int) int {
	if c.items >= 0 {
		n = min(n, c.items)
	}
	return max(0, min(n, c.left))
}

// again reports whether id was converted before in this conversion, and
// if so the string that stands for it; else it notes id as shown at at.
func (c *cut) again(id identity, at string) (protocol.Value, bool) {
	if first, ok := c.seen[id]; ok {
		return protocol.StringValue(RepeatPrefix + first), true
	}
	if c.seen == nil {
		c.seen = map[identity]string{}
	}
	c.seen[id] = at
	return protocol.Value{}, false
}

// convert converts v, found at at; deep says whether v's type holds
// pointers (where a repeat can be met below it, so paths are kept).
func (c *cut) convert(v reflect.Value, depth int, at string, deep bool) protocol.Value {
	if !v.IsValid() {
		return protocol.Nil()
	}
	if depth > MaxDepth {
		return protocol.StringValue(fmt.Sprintf("… %s deeper than %d levels", v.Type(), MaxDepth))
	}
	c.made++
	if c.left > 0 {
		c.left--
	}
	if v.Type() == entityType {
		return EntityValue(v.Interface().(ecs.Entity))
	}
	switch v.Kind() {
	case reflect.Bool:
		return protocol.BoolValue(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return protocol.IntValue(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return protocol.UintValue(v.Uint())
	case reflect.Float32:
		return protocol.Float32Value(float32(v.Float()))
	case reflect.Float64:
		return protocol.FloatValue(v.Float())
	case reflect.String:
		return protocol.StringValue(v.String())
	case reflect.Struct:
		t := v.Type()
		fields := make([]protocol.Field, 0, t.NumField())
		for i := range t.NumField() {
			if c.left == 0 { // the values spent: the other fields counted
				fields = append(fields, protocol.Field{Name: "…", Value: protocol.StringValue(fmt.Sprintf("%d more fields", t.NumField()-i))})
				break
			}
			if name, ok := FieldName(t, i); ok {
				f, fat, fdeep := fieldValue(v, i), "", false
				if deep && HoldsPointers(f.Type()) {
					fat, fdeep = protocol.ChildPath(at, name, false), true
				}
				fields = append(fields, protocol.Field{Name: name, Value: c.convert(f, depth+1, fat, fdeep)})
			}
		}
		return protocol.MapValue(fields...)
	case reflect.Array, reflect.Slice:
		if v.Kind() == reflect.Slice {
			if v.IsNil() {
				return protocol.Nil()
			}
			if v.Len() > 0 && (v.Len() > MaxItems || HoldsPointers(v.Type().Elem())) { // may be shared
				if ref, ok := c.again(identityOf(v, v.Len()), at); ok {
					return ref
				}
			}
		}
		n := c.room(v.Len())
		items := make([]protocol.Value, n, n+1)
		edeep := deep && HoldsPointers(v.Type().Elem())
		for i := range items {
			iat := ""
			if edeep {
				iat = protocol.ChildPath(at, strconv.Itoa(i), true)
			}
			items[i] = c.convert(v.Index(i), depth+1, iat, edeep)
		}
		if v.Len() > n {
			items = append(items, protocol.StringValue(fmt.Sprintf("… %d more", v.Len()-n)))
		}
		return protocol.ListValue(items...)
	case reflect.Map:
		if v.IsNil() {
			return protocol.Nil()
		}
		if ref, ok := c.again(identityOf(v, 0), at); ok {
			return ref
		}
		n := c.room(v.Len())
		// In key order when all of it is shown; a map cut short by the
		// values left is not sorted whole to show a few of its entries.
		keys, vals, _ := Entries(v, 0, n, c.items < 0 && n == v.Len())
		fields := make([]protocol.Field, 0, n+1)
		edeep := HoldsPointers(v.Type().Elem())
		for i := range keys.Len() {
			key, kat := KeyText(keys.Index(i)), ""
			if edeep {
				kat = protocol.ChildPath(at, key, true)
			}
			fields = append(fields, protocol.Field{Name: key, Value: c.convert(vals.Index(i), depth+1, kat, edeep)})
		}
		if v.Len() > n {
			fields = append(fields, protocol.Field{Name: "…", Value: protocol.StringValue(fmt.Sprintf("%d more", v.Len()-n))})
		}
		return protocol.MapValue(fields...)
	case reflect.Pointer:
		if v.IsNil() {
			return protocol.Nil()
		}
		if ref, ok := c.again(identityOf(v, 0), at); ok {
			return ref
		}
		return c.convert(v.Elem(), depth+1, at, HoldsPointers(v.Type().Elem()))
	case reflect.Interface:
		if v.IsNil() {
			return protocol.Nil()
		}
		return c.convert(v.Elem(), depth+1, at, HoldsPointers(v.Elem().Type()))
	}
	return protocol.StringValue(v.Type().String())
}
