package ui

import (
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// How values are printed in the panes: by their schema where known.

// field finds a field's schema by name.
func field(fs []protocol.FieldSchema, name string) *protocol.FieldSchema {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i]
		}
	}
	return nil
}

// shortAs prints a value knowing its schema: entity fields as 42v3.
func shortAs(v protocol.Value, f *protocol.FieldSchema) string {
	if f == nil {
		return short(v)
	}
	switch {
	case f.Kind == "entity" && (v.Kind() == protocol.KindInt || v.Kind() == protocol.KindUint):
		if e := protocol.EntityID(uint64(v.Int()) | v.Uint()); e == 0 {
			return "none"
		} else {
			return e.String()
		}
	case v.Kind() == protocol.KindMap && f.Kind == "map" && f.Elem != nil: // a Go map: each entry's value is an Elem
		parts := make([]string, v.Len())
		for i := range parts {
			k, e := v.Entry(i)
			parts[i] = printable.Text(k) + ":" + shortAs(e, f.Elem)
		}
		return "{" + strings.Join(parts, " ") + "}"
	case v.Kind() == protocol.KindMap && len(f.Fields) > 0:
		return shortFields(v, f.Fields)
	case v.Kind() == protocol.KindList && f.Elem != nil:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = shortAs(v.Index(i), f.Elem)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return short(v)
}

// shortFields prints a struct value field by field with its schema.
func shortFields(v protocol.Value, fs []protocol.FieldSchema) string {
	if v.Kind() != protocol.KindMap {
		return short(v)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := range v.Len() {
		if i > 0 {
			b.WriteByte(' ')
		}
		k, e := v.Entry(i)
		b.WriteString(printable.Text(k) + ":" + shortAs(e, field(fs, k)))
	}
	b.WriteByte('}')
	return b.String()
}

// short prints a value for a list: floats to 6 significant digits.
func short(v protocol.Value) string {
	switch v.Kind() {
	case protocol.KindFloat:
		return strconv.FormatFloat(v.Float(), 'g', 6, 64)
	case protocol.KindMap:
		return shortFields(v, nil)
	case protocol.KindList:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = short(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return v.String()
}
