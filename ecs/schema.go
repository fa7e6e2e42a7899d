package ecs

import "reflect"

// FieldKind classifies a component field for display and editing.
type FieldKind uint8

// Field kinds, from the Go kind of the field's type.
const (
	KindOther FieldKind = iota
	KindBool
	KindInt
	KindUint
	KindFloat
	KindString
	KindStruct
	KindArray
	KindSlice
	KindMap
	KindPointer
	KindEntity
)

var fieldKindNames = [...]string{"other", "bool", "int", "uint", "float", "string", "struct", "array", "slice", "map", "pointer", "entity"}

// String names the kind in lower case ("float", "struct", ...).
func (k FieldKind) String() string {
	if int(k) < len(fieldKindNames) {
		return fieldKindNames[k]
	}
	return "other"
}

// Field describes one exported field of a component, computed by reflection at
// registration. Nested structs list their fields in Fields; arrays, slices and
// maps describe their element in Elem (and arrays their length in Len).
type Field struct {
	Name   string
	Kind   FieldKind
	Type   string // the Go type as written, e.g. "float64", "[4]uint8"
	Offset uintptr
	Size   uintptr // bytes of the field's memory
	Len    int     // array length; 0 otherwise
	Elem   *Field  // element of an array, slice or map (its Name is empty)
	Key    *Field  // key of a map
	Fields []Field // fields of a nested struct
}

const maxSchemaDepth = 8

var entityType = reflect.TypeFor[Entity]()

// Describe describes any type as a field is described (with no name): a
// resource's, or what a pointer in a value points at. Structs list their
// exported fields, lists and maps their elements, to a depth of 8.
func Describe(t reflect.Type) Field { return describeType(t, 0) }

func describeFields(t reflect.Type) []Field {
	if t.Kind() != reflect.Struct {
		return nil
	}
	return structFields(t, 0)
}

func structFields(t reflect.Type, depth int) []Field {
	var out []Field
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type == relationType { // the target, by its shown name
			out = append(out, Field{Name: RelationField(t), Type: "ecs.Entity", Size: entityType.Size(), Offset: sf.Offset, Kind: KindEntity})
			continue
		}
		if !sf.IsExported() {
			continue
		}
		f := describeType(sf.Type, depth+1)
		f.Name = sf.Name
		f.Offset = sf.Offset
		out = append(out, f)
	}
	return out
}

func describeType(t reflect.Type, depth int) Field {
	f := Field{Type: t.String(), Size: t.Size()}
	if t == entityType {
		f.Kind = KindEntity
		return f
	}
	switch t.Kind() {
	case reflect.Bool:
		f.Kind = KindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f.Kind = KindInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		f.Kind = KindUint
	case reflect.Float32, reflect.Float64:
		f.Kind = KindFloat
	case reflect.String:
		f.Kind = KindString
	case reflect.Struct:
		f.Kind = KindStruct
		if depth < maxSchemaDepth {
			f.Fields = structFields(t, depth)
		}
	case reflect.Array:
		f.Kind = KindArray
		f.Len = t.Len()
		f.Elem = elemOf(t.Elem(), depth)
	case reflect.Slice:
		f.Kind = KindSlice
		f.Elem = elemOf(t.Elem(), depth)
	case reflect.Map:
		f.Kind = KindMap
		f.Key = elemOf(t.Key(), depth)
		f.Elem = elemOf(t.Elem(), depth)
	case reflect.Pointer:
		f.Kind = KindPointer
	default:
		f.Kind = KindOther
	}
	return f
}

func elemOf(t reflect.Type, depth int) *Field {
	if depth >= maxSchemaDepth {
		return &Field{Kind: KindOther, Type: t.String()}
	}
	e := describeType(t, depth+1)
	return &e
}
