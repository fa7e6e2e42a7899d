package values

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

var (
	entityType   = reflect.TypeFor[ecs.Entity]()
	relationType = reflect.TypeFor[ecs.Relation]()
)

// MaxDepth stops runaway recursion through self-referencing types.
const MaxDepth = 16

// Of turns a Go value of a component (or event, resource) into its
// wire form: structs as maps of exported fields, arrays and slices as lists,
// entities as handles, maps as maps keyed by text in key order (see
// Keys). Lists and maps longer than MaxItems are cut there, with a
// last string item saying how many were left out: a frame stays small when
// a value holds a big slice (a grid of a million cells, say).
func Of(v reflect.Value) protocol.Value { return convert(v, 0, &cut{items: MaxItems, left: -1}) }

// Whole is Of without the cut, for snapshots, which must be whole.
func Whole(v reflect.Value) protocol.Value { return convert(v, 0, &cut{items: -1, left: -1}) }

// Preview is a value in brief, for one line of a resource page: at most
// PreviewItems items a list and PreviewValues values in all, the rest
// counted in a "… N more" item.
func Preview(v reflect.Value) protocol.Value {
	return convert(v, 0, &cut{items: PreviewItems, left: PreviewValues})
}

const (
	// MaxItems bounds the items of one list or map in a frame.
	MaxItems = 64
	// PreviewItems and PreviewValues bound a Preview.
	PreviewItems  = 8
	PreviewValues = 24
)

// cut is how much of a value a conversion keeps: items per list or map
// (-1: all), and values left in all (-1: no bound).
type cut struct{ items, left int }

// room is how many of n items a list or map keeps.
func (c *cut) room(n int) int {
	if c.items >= 0 {
		n = min(n, c.items)
	}
	if c.left >= 0 {
		n = min(n, c.left)
	}
	return n
}

// spend counts one value made.
func (c *cut) spend() {
	if c.left > 0 {
		c.left--
	}
}

func convert(v reflect.Value, depth int, c *cut) protocol.Value {
	if depth > MaxDepth || !v.IsValid() {
		return protocol.Nil()
	}
	c.spend()
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
			if c.left == 0 { // a preview's values spent: the other fields counted
				fields = append(fields, protocol.Field{Name: "…", Value: protocol.StringValue(fmt.Sprintf("%d more fields", t.NumField()-i))})
				break
			}
			if name, ok := FieldName(t, i); ok {
				fields = append(fields, protocol.Field{Name: name, Value: convert(fieldValue(v, i), depth+1, c)})
			}
		}
		return protocol.MapValue(fields...)
	case reflect.Array, reflect.Slice:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return protocol.Nil()
		}
		n := c.room(v.Len())
		items := make([]protocol.Value, n, n+1)
		for i := range items {
			items[i] = convert(v.Index(i), depth+1, c)
		}
		if v.Len() > n {
			items = append(items, protocol.StringValue(fmt.Sprintf("… %d more", v.Len()-n)))
		}
		return protocol.ListValue(items...)
	case reflect.Map:
		if v.IsNil() {
			return protocol.Nil()
		}
		n := c.room(v.Len())
		keys, vals, _ := Entries(v, 0, n, c.items < 0)
		fields := make([]protocol.Field, 0, n+1)
		for i := range keys.Len() {
			fields = append(fields, protocol.Field{Name: KeyText(keys.Index(i)), Value: convert(vals.Index(i), depth+1, c)})
		}
		if v.Len() > n {
			fields = append(fields, protocol.Field{Name: "…", Value: protocol.StringValue(fmt.Sprintf("%d more", v.Len()-n))})
		}
		return protocol.MapValue(fields...)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return protocol.Nil()
		}
		return convert(v.Elem(), depth+1, c)
	}
	return protocol.StringValue(v.Type().String())
}

// FieldName is the name struct type t's field i shows by on the wire, and
// whether it shows: an exported field by its name, an embedded
// ecs.Relation as its target (see ecs.RelationField).
func FieldName(t reflect.Type, i int) (string, bool) {
	switch f := t.Field(i); {
	case f.Anonymous && f.Type == relationType:
		return ecs.RelationField(t), true
	case f.IsExported():
		return f.Name, true
	}
	return "", false
}

// fieldValue is field i of struct v as the wire shows it: a relation's
// target handle in place of the embedded ecs.Relation.
func fieldValue(v reflect.Value, i int) reflect.Value {
	f := v.Field(i)
	if f.Type() == relationType {
		return reflect.ValueOf(f.Interface().(ecs.Relation).Target())
	}
	return f
}

// EntityValue is a handle as a wire value.
func EntityValue(e ecs.Entity) protocol.Value {
	return protocol.UintValue(uint64(protocol.MakeEntityID(e.Index(), e.Generation())))
}

// Schema turns a component's description into its wire form.
func Schema(in ecs.ComponentInfo) protocol.Component {
	c := protocol.Component{
		ID: uint16(in.ID), Name: in.Name, Short: in.Short, Size: int(in.Size),
		Storage: in.Storage.String(), Fields: FieldSchemas(in.Fields),
	}
	return c
}

// FieldSchemas turns a component's fields into their wire form.
func FieldSchemas(fs []ecs.Field) []protocol.FieldSchema {
	if len(fs) == 0 {
		return nil
	}
	out := make([]protocol.FieldSchema, len(fs))
	for i := range fs {
		out[i] = fieldSchema(&fs[i])
	}
	return out
}

func fieldSchema(f *ecs.Field) protocol.FieldSchema {
	s := protocol.FieldSchema{Name: f.Name, Kind: f.Kind.String(), Type: f.Type, Len: f.Len, Offset: int(f.Offset), Size: int(f.Size), Fields: FieldSchemas(f.Fields)}
	if f.Elem != nil {
		e := fieldSchema(f.Elem)
		s.Elem = &e
	}
	if f.Key != nil {
		k := fieldSchema(f.Key)
		s.Key = &k
	}
	return s
}

// Handle is e as the wire carries it (0 for the zero entity).
func Handle(e ecs.Entity) protocol.EntityID {
	if e.IsZero() {
		return 0
	}
	return protocol.MakeEntityID(e.Index(), e.Generation())
}

// Handles is es as wire entity ids. On a little-endian machine it is
// the same memory, not a copy (an Entity is its index then its generation,
// an EntityID's low and high halves): what it returns is only good while
// es is.
func Handles(es []ecs.Entity) []protocol.EntityID {
	if LittleEndian && unsafe.Sizeof(ecs.Entity{}) == unsafe.Sizeof(protocol.EntityID(0)) {
		return unsafe.Slice((*protocol.EntityID)(unsafe.Pointer(unsafe.SliceData(es))), len(es))
	}
	out := make([]protocol.EntityID, len(es))
	for i, e := range es {
		out[i] = Handle(e)
	}
	return out
}

// Entity is a wire handle as the kernel's.
func Entity(e protocol.EntityID) ecs.Entity { return ecs.EntityOf(e.Index(), e.Generation()) }

// RawTravels reports whether a component's memory can travel as is: a
// little-endian machine, and a layout readers decode.
func RawTravels(schemas []protocol.Component, id uint16, size int) bool {
	if !LittleEndian {
		return false
	}
	for i := range schemas {
		if schemas[i].ID == id {
			return schemas[i].Size == size && protocol.RawLayout(schemas[i].Fields, size)
		}
	}
	return false
}

// LittleEndian reports whether the machine stores numbers little end
// first: the layout a recording's raw columns carry.
var LittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Provenance is the kernel's provenance on the wire, nil when unknown.
func Provenance(p ecs.Provenance) *protocol.Provenance {
	if !p.Known {
		return nil
	}
	return &protocol.Provenance{Tick: p.Frame, By: p.By}
}
