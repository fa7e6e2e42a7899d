package values

import (
	"encoding/binary"
	"reflect"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

var (
	entityType   = reflect.TypeFor[ecs.Entity]()
	relationType = reflect.TypeFor[ecs.Relation]()
)

// FieldName is the name struct type t's field i shows by on the wire, and
// whether it shows: an exported field by its name, an embedded
// ecs.Relation as its target (see ecs.RelationField), an unexported one
// by its name too (read-only: a library type's state, a physics body's, a
// tween's, shows whole), the blank field not at all.
func FieldName(t reflect.Type, i int) (string, bool) {
	switch f := t.Field(i); {
	case f.Anonymous && f.Type == relationType:
		return ecs.RelationField(t), true
	case f.Name == "_":
		return "", false
	default:
		return f.Name, true
	}
}

// fieldValue is field i of struct v as the wire shows it: a relation's
// target handle in place of the embedded ecs.Relation, and an unexported
// field readable as any other (v is a value the agent may read: one not
// itself reached through an unexported field without fieldValue).
func fieldValue(v reflect.Value, i int) reflect.Value {
	f := readable(v, i)
	if f.Type() == relationType {
		return reflect.ValueOf(f.Interface().(ecs.Relation).Target())
	}
	return f
}

// readable is field i of struct v, an unexported one made readable like
// an exported one (through its address: v is copied first when it has
// none).
func readable(v reflect.Value, i int) reflect.Value {
	f := v.Field(i)
	if f.CanInterface() {
		return f
	}
	if !f.CanAddr() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		f = c.Field(i)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
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
