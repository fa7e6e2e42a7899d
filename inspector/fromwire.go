package inspector

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// fromWire sets dst, a settable Go value, from its wire form: the inverse
// of wholeValue (structs from maps of exported fields, lists into arrays
// and slices, entities from handles, maps with string or number keys,
// pointers). Fields the wire value lacks keep what dst holds.
func fromWire(dst reflect.Value, v protocol.Value, depth int) error {
	if depth > maxValueDepth {
		return fmt.Errorf("a value nested over %d deep", maxValueDepth)
	}
	switch dst.Type() {
	case entityType:
		e, err := entityFromWire(v)
		if err == nil {
			dst.Set(reflect.ValueOf(e))
		}
		return err
	case childOfType: // its field is the kernel's: set its memory, an Entity
		p, _ := v.Get("Parent")
		e, err := entityFromWire(p)
		if err == nil {
			*(*ecs.Entity)(unsafe.Pointer(dst.UnsafeAddr())) = e
		}
		return err
	}
	k := v.Kind()
	bad := func() error { return fmt.Errorf("a %s cannot hold %v", dst.Type(), v) }
	switch dst.Kind() {
	case reflect.Bool:
		if k != protocol.KindBool {
			return bad()
		}
		dst.SetBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if (k != protocol.KindInt && k != protocol.KindUint) || (k == protocol.KindUint && v.Uint() > math.MaxInt64) || dst.OverflowInt(v.Int()) {
			return bad()
		}
		dst.SetInt(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if (k != protocol.KindInt && k != protocol.KindUint) || (k == protocol.KindInt && v.Int() < 0) || dst.OverflowUint(v.Uint()) {
			return bad()
		}
		dst.SetUint(v.Uint())
	case reflect.Float32, reflect.Float64:
		f, ok := v.Number()
		if !ok {
			return bad()
		}
		dst.SetFloat(f)
	case reflect.String:
		if k != protocol.KindString {
			return bad()
		}
		dst.SetString(v.Str())
	case reflect.Struct:
		if k != protocol.KindMap {
			return bad()
		}
		for i := range v.Len() {
			name, fv := v.Entry(i)
			f, ok := dst.Type().FieldByName(name)
			if !ok || !f.IsExported() || len(f.Index) != 1 {
				return fmt.Errorf("%s has no field %s", dst.Type(), name)
			}
			if err := fromWire(dst.Field(f.Index[0]), fv, depth+1); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	case reflect.Array:
		if k != protocol.KindList || v.Len() > dst.Len() {
			return bad()
		}
		for i := range v.Len() {
			if err := fromWire(dst.Index(i), v.Index(i), depth+1); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if k == protocol.KindNil {
			dst.SetZero()
			return nil
		}
		if k != protocol.KindList {
			return bad()
		}
		s := reflect.MakeSlice(dst.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			if err := fromWire(s.Index(i), v.Index(i), depth+1); err != nil {
				return err
			}
		}
		dst.Set(s)
	case reflect.Map:
		if k == protocol.KindNil {
			dst.SetZero()
			return nil
		}
		if k != protocol.KindMap {
			return bad()
		}
		m := reflect.MakeMapWithSize(dst.Type(), v.Len())
		for i := range v.Len() {
			name, ev := v.Entry(i)
			key := reflect.New(dst.Type().Key()).Elem()
			if err := keyFromName(key, name); err != nil {
				return err
			}
			val := reflect.New(dst.Type().Elem()).Elem()
			if err := fromWire(val, ev, depth+1); err != nil {
				return err
			}
			m.SetMapIndex(key, val)
		}
		dst.Set(m)
	case reflect.Pointer:
		if k == protocol.KindNil {
			dst.SetZero()
			return nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := fromWire(p.Elem(), v, depth+1); err != nil {
			return err
		}
		dst.Set(p)
	default:
		return fmt.Errorf("a %s cannot be rebuilt from its recorded form", dst.Type())
	}
	return nil
}

// keyFromName sets a map key from the name the wire form gave it.
func keyFromName(key reflect.Value, name string) error {
	switch key.Kind() {
	case reflect.String:
		key.SetString(name)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(name, 10, 64)
		if err == nil && !key.OverflowInt(i) {
			key.SetInt(i)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err := strconv.ParseUint(name, 10, 64)
		if err == nil && !key.OverflowUint(u) {
			key.SetUint(u)
			return nil
		}
	}
	return fmt.Errorf("a map key %q cannot be a %s", name, key.Type())
}

// entityFromWire reads a handle as wholeValue writes it: the packed form.
func entityFromWire(v protocol.Value) (ecs.Entity, error) {
	switch v.Kind() {
	case protocol.KindNil:
		return ecs.Entity{}, nil
	case protocol.KindUint, protocol.KindInt:
		id := protocol.EntityID(v.Uint())
		return ecs.EntityOf(id.Index(), id.Generation()), nil
	}
	return ecs.Entity{}, fmt.Errorf("an entity cannot be %v", v)
}
