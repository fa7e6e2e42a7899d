package inspector

import "reflect"

// plainCopy copies v deeply enough that the game's later writes cannot
// reach what the converter reads of it: values without pointers as they
// are, slices as new slices, structs and arrays with their exported
// pointer-holding parts copied the same way (the converter reads exported
// fields only). It reports false for what it does not copy (maps,
// pointers, interfaces, ...): the caller converts those at once instead.
// A copy is a memmove where a conversion builds a value per element: a
// 250,000-cell grid resource is copied on the game goroutine and
// converted on the encoder's.
func plainCopy(v reflect.Value, depth int) (reflect.Value, bool) {
	t := v.Type()
	if !holdsPointers(t) {
		c := reflect.New(t).Elem()
		c.Set(v)
		return c, true
	}
	if depth > maxValueDepth {
		return reflect.Value{}, false
	}
	switch t.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(t), true
		}
		c := reflect.MakeSlice(t, v.Len(), v.Len())
		if !holdsPointers(t.Elem()) {
			reflect.Copy(c, v)
			return c, true
		}
		return c, copyElems(c, v, depth)
	case reflect.Array:
		c := reflect.New(t).Elem()
		return c, copyElems(c, v, depth)
	case reflect.Struct:
		c := reflect.New(t).Elem()
		c.Set(v) // unexported fields as they are: the converter does not read them
		for i := range t.NumField() {
			if f := t.Field(i); !f.IsExported() || !holdsPointers(f.Type) {
				continue
			}
			fc, ok := plainCopy(v.Field(i), depth+1)
			if !ok {
				return reflect.Value{}, false
			}
			c.Field(i).Set(fc)
		}
		return c, true
	}
	return reflect.Value{}, false
}

// copyElems sets each element of c, a slice or array as long as v, to a
// plainCopy of v's.
func copyElems(c, v reflect.Value, depth int) bool {
	for i := range v.Len() {
		e, ok := plainCopy(v.Index(i), depth+1)
		if !ok {
			return false
		}
		c.Index(i).Set(e)
	}
	return true
}
