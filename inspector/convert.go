package inspector

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

var (
	entityType  = reflect.TypeFor[ecs.Entity]()
	childOfType = reflect.TypeFor[ecs.ChildOf]()
)

// childOfFields is how ChildOf shows on the wire: its parent, which the
// kernel keeps unexported so that only SetParent changes it.
var childOfFields = []protocol.FieldSchema{{Name: "Parent", Kind: "entity", Type: "ecs.Entity", Size: 8}}

// maxValueDepth stops runaway recursion through self-referencing types.
const maxValueDepth = 16

// toValue turns a Go value of a component (or event, resource) into its
// wire form: structs as maps of exported fields, arrays and slices as lists,
// entities as handles. Lists and maps longer than maxItems are cut there,
// with a last string item saying how many were left out: a frame stays
// small when a value holds a big slice (a grid of a million cells, say).
func toValue(v reflect.Value) protocol.Value { return toValueDepth(v, 0, maxItems) }

// wholeValue is toValue without the cut, for snapshots, which must be whole.
func wholeValue(v reflect.Value) protocol.Value { return toValueDepth(v, 0, -1) }

// maxItems bounds the items of one list or map in a frame.
const maxItems = 64

func toValueDepth(v reflect.Value, depth, limit int) protocol.Value {
	if depth > maxValueDepth || !v.IsValid() {
		return protocol.Nil()
	}
	switch v.Type() {
	case entityType:
		return entityValue(v.Interface().(ecs.Entity))
	case childOfType:
		return protocol.MapValue(protocol.Field{Name: "Parent", Value: entityValue(v.Interface().(ecs.ChildOf).Parent())})
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
			if f := t.Field(i); f.IsExported() {
				fields = append(fields, protocol.Field{Name: f.Name, Value: toValueDepth(v.Field(i), depth+1, limit)})
			}
		}
		return protocol.MapValue(fields...)
	case reflect.Array, reflect.Slice:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return protocol.Nil()
		}
		n := v.Len()
		if limit >= 0 {
			n = min(n, limit)
		}
		items := make([]protocol.Value, n, n+1)
		for i := range items {
			items[i] = toValueDepth(v.Index(i), depth+1, limit)
		}
		if v.Len() > n {
			items = append(items, protocol.StringValue(fmt.Sprintf("… %d more", v.Len()-n)))
		}
		return protocol.ListValue(items...)
	case reflect.Map:
		if v.IsNil() {
			return protocol.Nil()
		}
		fields := make([]protocol.Field, 0, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			if limit >= 0 && len(fields) == limit {
				fields = append(fields, protocol.Field{Name: "…", Value: protocol.StringValue(fmt.Sprintf("%d more", v.Len()-limit))})
				break
			}
			k := iter.Key()
			name := ""
			if k.Kind() == reflect.String {
				name = k.String()
			} else {
				name = toValueDepth(k, depth+1, limit).String()
			}
			fields = append(fields, protocol.Field{Name: name, Value: toValueDepth(iter.Value(), depth+1, limit)})
		}
		return protocol.MapValue(fields...)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return protocol.Nil()
		}
		return toValueDepth(v.Elem(), depth+1, limit)
	}
	return protocol.StringValue(v.Type().String())
}

// fromValue turns a wire value into plain Go for ecs.NewValue and
// ecs.Inspection.SetField: maps, lists, numbers, strings, bools.
func fromValue(v protocol.Value) any { return v.Interface() }

func entityValue(e ecs.Entity) protocol.Value {
	return protocol.UintValue(uint64(protocol.MakeEntityID(e.Index(), e.Generation())))
}

// schemaOf turns a component's description into its wire form.
func schemaOf(in ecs.ComponentInfo) protocol.Component {
	c := protocol.Component{
		ID: uint16(in.ID), Name: in.Name, Short: in.Short, Size: int(in.Size),
		Storage: in.Storage.String(), Fields: fieldSchemas(in.Fields),
	}
	if in.Type == childOfType {
		c.Fields = childOfFields
	}
	return c
}

func fieldSchemas(fs []ecs.Field) []protocol.FieldSchema {
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
	s := protocol.FieldSchema{Name: f.Name, Kind: f.Kind.String(), Type: f.Type, Len: f.Len, Offset: int(f.Offset), Size: int(f.Size), Fields: fieldSchemas(f.Fields)}
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

func wireEntity(e ecs.Entity) protocol.EntityID {
	if e.IsZero() {
		return 0
	}
	return protocol.MakeEntityID(e.Index(), e.Generation())
}

// wireEntities is es as wire entity ids. On a little-endian machine it is
// the same memory, not a copy (an Entity is its index then its generation,
// an EntityID's low and high halves): what it returns is only good while
// es is.
func wireEntities(es []ecs.Entity) []protocol.EntityID {
	if littleEndian && unsafe.Sizeof(ecs.Entity{}) == unsafe.Sizeof(protocol.EntityID(0)) {
		return unsafe.Slice((*protocol.EntityID)(unsafe.Pointer(unsafe.SliceData(es))), len(es))
	}
	out := make([]protocol.EntityID, len(es))
	for i, e := range es {
		out[i] = wireEntity(e)
	}
	return out
}

func ecsEntity(e protocol.EntityID) ecs.Entity { return ecs.EntityOf(e.Index(), e.Generation()) }
