package ecs

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// inspectSetField is [Inspection.SetField].
func (w *World) inspectSetField(e Entity, path string, value any) error {
	var buf [8]pathSeg
	segs, err := splitPath(buf[:0], path)
	if err != nil {
		return err
	}
	info, ok := w.Inspect().ComponentByName(segs[0].name)
	if !ok {
		return fmt.Errorf("ecs: no component named %q", segs[0].name)
	}
	if ri := w.relation(info.ID); ri != nil && len(segs) > 1 && segs[1].name == RelationField(info.Type) || info.ID == childOfID {
		return errRelationDirect(info.Short)
	}
	comp, ok := w.Inspect().Value(e, info.ID)
	if !ok {
		if !w.Alive(e) {
			return w.entityError(e)
		}
		return &ComponentError{Entity: e, Component: info.Short}
	}
	target, nonFinite, err := walkPath(comp, info.Short, segs)
	if err != nil {
		return err
	}
	if len(segs) == 1 && len(segs[0].index) == 0 {
		return fmt.Errorf("ecs: %s: name a field to set, like %s.%s", path, info.Short, firstField(info))
	}
	if err := w.setValue(path, target, value, nonFinite); err != nil {
		return err
	}
	w.markChanged(e, info.ID)
	w.logStructural(OpSet, e, int(info.ID))
	return nil
}

// nonFiniteTag is the struct tag that lets a float field take NaN and ±Inf
// from SetField and NewValue.
const nonFiniteTag = "nonfinite"

// allowsNonFinite reports whether field f opted in to NaN and ±Inf.
func allowsNonFinite(f reflect.StructField) bool {
	for opt := range strings.SplitSeq(f.Tag.Get("ecs"), ",") {
		if strings.TrimSpace(opt) == nonFiniteTag {
			return true
		}
	}
	return false
}

func firstField(info ComponentInfo) string {
	if len(info.Fields) > 0 {
		return info.Fields[0].Name
	}
	return "Field"
}

type pathSeg struct {
	name  string
	index []int
}

// splitPath parses "A.B[2][0].C" into segments, appended to segs.
func splitPath(segs []pathSeg, path string) ([]pathSeg, error) {
	if path == "" {
		return nil, fmt.Errorf("ecs: empty field path: want Component.Field")
	}
	for part := range strings.SplitSeq(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" {
			return nil, fmt.Errorf("ecs: field path %q has an empty name", path)
		}
		seg := pathSeg{name: name}
		if rest != "" {
			rest = "[" + rest
			for rest != "" {
				if rest[0] != '[' {
					return nil, fmt.Errorf("ecs: field path %q: unexpected %q", path, rest)
				}
				end := strings.IndexByte(rest, ']')
				if end < 0 {
					return nil, fmt.Errorf("ecs: field path %q: missing ]", path)
				}
				i, err := strconv.Atoi(rest[1:end])
				if err != nil || i < 0 {
					return nil, fmt.Errorf("ecs: field path %q: index %q is not a whole number", path, rest[1:end])
				}
				seg.index = append(seg.index, i)
				rest = rest[end+1:]
			}
		}
		segs = append(segs, seg)
	}
	return segs, nil
}

// walkPath follows segs from the component value to the field to set, and
// reports whether the last struct field on the way allows non-finite floats.
func walkPath(v reflect.Value, compName string, segs []pathSeg) (reflect.Value, bool, error) {
	at := compName
	nonFinite := false
	v, err := indexInto(v, at, segs[0].index)
	if err != nil {
		return v, false, err
	}
	for i, seg := range segs[1:] {
		if v.Kind() != reflect.Struct {
			return v, false, fmt.Errorf("ecs: %s is a %s, not a struct: it has no field %s", at, v.Type(), seg.name)
		}
		f, ok := v.Type().FieldByName(seg.name)
		if !ok || !f.IsExported() || len(f.Index) != 1 {
			if i == 0 {
				return v, false, fmt.Errorf("ecs: component %s has no field %s", compName, seg.name)
			}
			return v, false, fmt.Errorf("ecs: %s has no field %s", at, seg.name)
		}
		nonFinite = allowsNonFinite(f)
		v = v.Field(f.Index[0])
		at += "." + seg.name
		if v, err = indexInto(v, at, seg.index); err != nil {
			return v, false, err
		}
		at += indexSuffix(seg.index)
	}
	return v, nonFinite, nil
}

func indexSuffix(idx []int) string {
	var b strings.Builder
	for _, i := range idx {
		fmt.Fprintf(&b, "[%d]", i)
	}
	return b.String()
}

func indexInto(v reflect.Value, at string, idx []int) (reflect.Value, error) {
	for _, i := range idx {
		switch v.Kind() {
		case reflect.Array, reflect.Slice:
			if i >= v.Len() {
				return v, fmt.Errorf("ecs: %s has %d elements: index %d is out of range", at, v.Len(), i)
			}
			v = v.Index(i)
			at += fmt.Sprintf("[%d]", i)
		default:
			return v, fmt.Errorf("ecs: %s is a %s: it cannot be indexed", at, v.Type())
		}
	}
	return v, nil
}

// setValue stores value into target, a settable field of a component, or
// says why it cannot; target is untouched on error. nonFinite lets a float
// field take NaN and ±Inf.
func (w *World) setValue(path string, target reflect.Value, value any, nonFinite bool) error {
	return w.converter().leaf(path, target, value, nonFinite)
}

// maxQuoted bounds how much of a bad value an error message quotes: a
// message that repeats a megabyte of bad input helps nobody.
const maxQuoted = 48

// describe quotes a value for an error message, cut to a short prefix.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return quotePrefix(s)
	}
	if v == nil {
		return "nothing"
	}
	switch v := v.(type) {
	case []any:
		return fmt.Sprintf("a list of %d items", len(v))
	case map[string]any:
		return fmt.Sprintf("a map of %d fields", len(v))
	}
	s := fmt.Sprintf("%v", v)
	if len(s) > maxQuoted {
		s = s[:maxQuoted] + "…"
	}
	return fmt.Sprintf("%s (%T)", s, v)
}

// quotePrefix quotes s, cut to maxQuoted bytes, invalid UTF-8 escaped.
func quotePrefix(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	case bool, nil:
		return 0, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	}
	return 0, false
}

func asInt(path string, v any) (int64, error) {
	if s, ok := v.(string); ok {
		if i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			return i, nil
		}
	}
	rv := reflect.ValueOf(v)
	if v != nil {
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return rv.Int(), nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if rv.Uint() > math.MaxInt64 {
				return 0, fmt.Errorf("ecs: %s: %d is too large", path, rv.Uint())
			}
			return int64(rv.Uint()), nil
		}
	}
	f, ok := asFloat(v)
	if !ok {
		return 0, fmt.Errorf("ecs: %s wants a number, got %s", path, describe(v))
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || f > math.MaxInt64 || f < math.MinInt64 {
		return 0, fmt.Errorf("ecs: %s wants a whole number, got %v", path, f)
	}
	return int64(f), nil
}
