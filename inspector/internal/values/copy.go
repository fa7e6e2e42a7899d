package values

import (
	"reflect"
	"sync"
	"unsafe"
)

// PlainCopy copies v deeply enough that the game's later writes cannot
// reach what the converter reads of it: values without pointers as they
// are, slices as new slices, structs and arrays with their pointer-holding
// parts (unexported ones too: the converter shows them) copied the same
// way. It reports false for what it does not copy (maps, pointers,
// interfaces, ...): the caller converts those at once instead.
// A copy is a memmove where a conversion builds a value per element: a
// 250,000-cell grid resource is copied on the game goroutine and
// converted on the encoder's.
func PlainCopy(v reflect.Value, depth int) (reflect.Value, bool) {
	t := v.Type()
	if !HoldsPointers(t) {
		c := reflect.New(t).Elem()
		c.Set(v)
		return c, true
	}
	if depth > MaxDepth {
		return reflect.Value{}, false
	}
	switch t.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(t), true
		}
		c := reflect.MakeSlice(t, v.Len(), v.Len())
		if !HoldsPointers(t.Elem()) {
			reflect.Copy(c, v)
			return c, true
		}
		return c, copyElems(c, v, depth)
	case reflect.Array:
		c := reflect.New(t).Elem()
		return c, copyElems(c, v, depth)
	case reflect.Struct:
		c := reflect.New(t).Elem()
		c.Set(v)
		for i := range t.NumField() {
			if !HoldsPointers(t.Field(i).Type) {
				continue
			}
			fc, ok := PlainCopy(readable(v, i), depth+1)
			if !ok {
				return reflect.Value{}, false
			}
			readable(c, i).Set(fc)
		}
		return c, true
	}
	return reflect.Value{}, false
}

// copyElems sets each element of c, a slice or array as long as v, to a
// PlainCopy of v's.
func copyElems(c, v reflect.Value, depth int) bool {
	for i := range v.Len() {
		e, ok := PlainCopy(v.Index(i), depth+1)
		if !ok {
			return false
		}
		c.Index(i).Set(e)
	}
	return true
}

// HoldsPointers reports whether values of t refer to memory outside
// themselves (pointers, slices, maps, interfaces, channels, funcs): a copy
// of such a value still shares that memory with the game. Strings do not
// count: their bytes never change.
func HoldsPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Struct, reflect.Array: // the cache's: they are walked
	default:
		return false
	}
	if v, ok := pointerTypes.Load(t); ok {
		return v.(bool)
	}
	r := holdsPointersUncached(t, 0)
	pointerTypes.Store(t, r)
	return r
}

var pointerTypes sync.Map // reflect.Type -> bool

// PointerFree reports whether t's memory holds no pointer at all, as the
// garbage collector sees it: strings count (their header points at their
// bytes), unlike for HoldsPointers. Only such a value may be copied into
// memory the collector does not scan, a []byte block: a string copied
// there keeps its bytes from no collection.
func PointerFree(t reflect.Type) bool { return !HoldsPointers(t) && !holdsStrings(t, 0) }

// holdsStrings reports whether a type HoldsPointers passes has a string
// in it.
func holdsStrings(t reflect.Type, depth int) bool {
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Array:
		return t.Len() > 0 && depth <= MaxDepth && holdsStrings(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			if depth > MaxDepth || holdsStrings(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}

func holdsPointersUncached(t reflect.Type, depth int) bool {
	if depth > MaxDepth {
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return false
	case reflect.Array:
		return t.Len() > 0 && holdsPointersUncached(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsPointersUncached(t.Field(i).Type, depth+1) {
				return true
			}
		}
		return false
	}
	return true
}

// CloneIfShared deep-copies a slice whose values hold pointers, so the
// writer goroutine never reads memory the game may be changing; a slice
// of plain data is returned as it is (it is a copy already).
func CloneIfShared(s reflect.Value) reflect.Value {
	if !s.IsValid() || !HoldsPointers(s.Type().Elem()) {
		return s
	}
	return Clone(s)
}

// Clone copies v and everything it points to, by identity: memory
// reached twice (a cycle, a slice or pointee two fields share) is copied
// once and shared the same way in the copy. Call Fits first: the copy
// costs what v holds.
func Clone(v reflect.Value) reflect.Value {
	var c cloner
	return c.clone(v)
}

// cloner is one Clone's memory: the copies made of what was met.
type cloner struct{ made map[identity]reflect.Value }

func (c *cloner) clone(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer:
		return c.cloneShared(v, out)
	case reflect.Array:
		for i := range v.Len() {
			out.Index(i).Set(c.clone(v.Index(i)))
		}
	case reflect.Struct:
		out.Set(v)
		for i := range v.NumField() {
			if HoldsPointers(v.Type().Field(i).Type) { // unexported ones too: the converter shows them
				readable(out, i).Set(c.clone(readable(v, i)))
			}
		}
	case reflect.Interface:
		if !v.IsNil() {
			out.Set(c.clone(v.Elem()))
		}
	default:
		out.Set(v)
	}
	return out
}

// cloneShared copies a slice, map or pointer into out (a zero value of
// its type): memory two places may reach, so a copy made before is
// handed out again, and a new one is noted before what it holds is
// copied (a cycle meets the copy being made).
func (c *cloner) cloneShared(v, out reflect.Value) reflect.Value {
	if v.IsNil() {
		return out
	}
	n := 0
	if v.Kind() == reflect.Slice {
		n = v.Len()
	}
	id := identityOf(v, n)
	if made, ok := c.made[id]; ok {
		return made
	}
	switch v.Kind() {
	case reflect.Slice:
		out.Set(reflect.MakeSlice(v.Type(), n, n))
	case reflect.Map:
		out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
	default:
		out.Set(reflect.New(v.Type().Elem()))
	}
	if c.made == nil {
		c.made = map[identity]reflect.Value{}
	}
	c.made[id] = out
	switch v.Kind() {
	case reflect.Slice:
		if !HoldsPointers(v.Type().Elem()) {
			reflect.Copy(out, v)
			return out
		}
		for i := range n {
			out.Index(i).Set(c.clone(v.Index(i)))
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			out.SetMapIndex(it.Key(), c.clone(it.Value()))
		}
	default:
		out.Elem().Set(c.clone(v.Elem()))
	}
	return out
}

// Bytes is an addressable value's memory, in place.
func Bytes(v reflect.Value) []byte {
	size := v.Type().Size()
	if size == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(v.Addr().UnsafePointer()), size)
}
