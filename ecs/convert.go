package ecs

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// The one conversion from plain Go data (what a wire value becomes:
// map[string]any for structs and maps, []any for arrays and slices,
// int64, uint64, float64, string, bool, []byte, nil) to a value of a
// component's, resource's or event's type. SetField and NewValue convert
// a tool's input with it, checked; RestoreValue converts values the game
// itself held, read back from a recording.

// converter converts plain data into Go values.
type converter struct {
	// trusted: the game's own values coming back (a rewind): a float takes
	// NaN and ±Inf whatever its tag, text is taken as it was.
	trusted bool
	// entity checks a handle the data names (nil: none checked).
	entity func(Entity) error
}

// converter is the world's conversion of a tool's input: handles must
// have been issued by this world.
func (w *World) converter() converter {
	return converter{entity: func(e Entity) error {
		if !w.issued(e) {
			return w.entityError(e)
		}
		return nil
	}}
}

// RestoreValue sets dst, a settable value, from x, plain data holding a
// value the game had (a recording's, a rewind's): structs from maps of
// their exported fields (fields x lacks keep what dst holds), arrays,
// slices and maps from lists and maps, pointers, handles from their packed
// numbers, ChildOf from its parent. Numbers must fit their type; NaN and
// ±Inf are taken anywhere, text as it was, and no handle is checked
// against a world, so it may run off the game goroutine.
func RestoreValue(dst reflect.Value, x any) error {
	return converter{trusted: true}.fill(dst, dst.Type().String(), x, true)
}

// fill sets v from x: a map of fields, a list, or a leaf; nonFinite is the
// enclosing field's opt-in to NaN and ±Inf.
func (c converter) fill(v reflect.Value, path string, x any, nonFinite bool) error {
	if x == nil {
		switch v.Kind() {
		case reflect.Slice, reflect.Map, reflect.Pointer:
			v.SetZero()
		}
		return nil
	}
	switch {
	case v.Kind() == reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := c.fill(p.Elem(), path, x, nonFinite); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	switch val := x.(type) {
	case map[string]any:
		switch v.Kind() {
		case reflect.Struct:
			return c.fillStruct(v, path, val)
		case reflect.Map:
			return c.fillMap(v, path, val, nonFinite)
		}
		return fmt.Errorf("ecs: %s is a %s: give it a value, not fields", path, v.Type())
	case []any:
		switch v.Kind() {
		case reflect.Array:
			if len(val) > v.Len() {
				return fmt.Errorf("ecs: %s has %d elements, got %d", path, v.Len(), len(val))
			}
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), len(val), len(val)))
		default:
			return fmt.Errorf("ecs: %s is a %s, not a list", path, v.Type())
		}
		for i, e := range val {
			if err := c.fill(v.Index(i), fmt.Sprintf("%s[%d]", path, i), e, nonFinite); err != nil {
				return err
			}
		}
		return nil
	case []byte:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes(append([]byte(nil), val...))
			return nil
		}
	}
	return c.leaf(path, v, x, nonFinite)
}

// fillStruct sets the fields fields names, in name order (so the first
// error is the same every time); the others keep what they hold.
func (c converter) fillStruct(v reflect.Value, path string, fields map[string]any) error {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if off, ok := relationOffset(v.Type()); ok && k == RelationField(v.Type()) {
			// A relation's target is the world's to keep: a rewind
			// restores it; a tool changes it through the relation.
			if !c.trusted {
				return errRelationDirect(v.Type().Name())
			}
			var target Entity
			if err := c.leaf(path+"."+k, reflect.ValueOf(&target).Elem(), fields[k], false); err != nil {
				return err
			}
			(*Relation)(unsafe.Add(v.Addr().UnsafePointer(), off)).target = target
			continue
		}
		f, ok := v.Type().FieldByName(k)
		if !ok || !f.IsExported() || len(f.Index) != 1 {
			return fmt.Errorf("ecs: %s has no field %s", path, k)
		}
		if err := c.fill(v.Field(f.Index[0]), path+"."+k, fields[k], allowsNonFinite(f)); err != nil {
			return err
		}
	}
	return nil
}

// fillMap makes a Go map of entries: keys from their names (strings, or
// whole numbers), values converted.
func (c converter) fillMap(v reflect.Value, path string, entries map[string]any, nonFinite bool) error {
	m := reflect.MakeMapWithSize(v.Type(), len(entries))
	for name, e := range entries {
		key := reflect.New(v.Type().Key()).Elem()
		if err := keyFromName(key, name); err != nil {
			return fmt.Errorf("ecs: %s: %w", path, err)
		}
		val := reflect.New(v.Type().Elem()).Elem()
		if err := c.fill(val, path+"["+name+"]", e, nonFinite); err != nil {
			return err
		}
		m.SetMapIndex(key, val)
	}
	v.Set(m)
	return nil
}

// keyFromName sets a map key from the name a map's entry has in plain
// data.
func keyFromName(key reflect.Value, name string) error {
	switch key.Kind() {
	case reflect.String:
		key.SetString(name)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if i, err := strconv.ParseInt(name, 10, 64); err == nil && !key.OverflowInt(i) {
			key.SetInt(i)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if u, err := strconv.ParseUint(name, 10, 64); err == nil && !key.OverflowUint(u) {
			key.SetUint(u)
			return nil
		}
	}
	return fmt.Errorf("a map key %q cannot be a %s", name, key.Type())
}

// leaf stores value into target, a field of a number, bool, string or
// handle, or says why it cannot; target is untouched on error. nonFinite
// lets a float field take NaN and ±Inf.
func (c converter) leaf(path string, target reflect.Value, value any, nonFinite bool) error {
	t := target.Type()
	if t == entityType {
		var e Entity
		switch x := value.(type) {
		case Entity:
			e = x
		case string:
			var err error
			if e, err = ParseEntity(x); err != nil {
				return fmt.Errorf("ecs: %s wants an entity like 42v3, got %s", path, describe(x))
			}
		case int64, uint64, int:
			// The packed form tools send: generation << 32 | index.
			u, _ := asInt(path, x)
			if p, ok := x.(uint64); ok {
				u = int64(p)
			}
			e = EntityOf(uint32(uint64(u)), uint32(uint64(u)>>32))
		default:
			return fmt.Errorf("ecs: %s wants an entity like 42v3, got %s", path, describe(value))
		}
		if c.entity != nil && !e.IsZero() {
			if err := c.entity(e); err != nil {
				return fmt.Errorf("ecs: %s: %v", path, err)
			}
		}
		target.Set(reflect.ValueOf(e))
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		switch x := value.(type) {
		case bool:
			target.SetBool(x)
			return nil
		case string:
			if b, err := strconv.ParseBool(x); err == nil {
				target.SetBool(b)
				return nil
			}
		}
		return fmt.Errorf("ecs: %s wants true or false, got %s", path, describe(value))
	case reflect.String:
		if x, ok := value.(string); ok {
			if !c.trusted && !utf8.ValidString(x) {
				return fmt.Errorf("ecs: %s wants valid UTF-8 text, got %s", path, describe(x))
			}
			target.SetString(x)
			return nil
		}
		return fmt.Errorf("ecs: %s wants a string, got %s", path, describe(value))
	case reflect.Float32, reflect.Float64:
		f, ok := asFloat(value)
		if !ok {
			return fmt.Errorf("ecs: %s wants a number, got %s", path, describe(value))
		}
		if (math.IsNaN(f) || math.IsInf(f, 0)) && !nonFinite && !c.trusted {
			return fmt.Errorf("ecs: %s refuses %v: a float field takes NaN and ±Inf only when tagged `ecs:\"nonfinite\"`", path, f)
		}
		if !math.IsInf(f, 0) && target.OverflowFloat(f) {
			return fmt.Errorf("ecs: %s is a float32: %v does not fit", path, f)
		}
		target.SetFloat(f)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := asInt(path, value)
		if err != nil {
			return err
		}
		if target.OverflowInt(i) {
			return fmt.Errorf("ecs: %s is an %s: %d does not fit", path, t.Kind(), i)
		}
		target.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u, ok := value.(uint64); ok && !target.OverflowUint(u) {
			target.SetUint(u)
			return nil
		}
		i, err := asInt(path, value)
		if err != nil {
			return err
		}
		if i < 0 || target.OverflowUint(uint64(i)) {
			return fmt.Errorf("ecs: %s is a %s: %d does not fit", path, t.Kind(), i)
		}
		target.SetUint(uint64(i))
		return nil
	}
	return fmt.Errorf("ecs: %s is a %s: set its elements or fields one by one", path, t)
}
