package protocol

// HandlesAsText is v, a value whose fields the schema fs describes, with
// every entity field (ChildOf's Parent, an event's Who, handles in arrays
// and nested structs) as its handle's text, 40v1: how people and JSON read
// a handle. Other values come back as they are.
func HandlesAsText(v Value, fs []FieldSchema) Value {
	if v.Kind() != KindMap || len(fs) == 0 {
		return v
	}
	out := make([]Field, 0, v.Len())
	for i := range v.Len() {
		name, fv := v.Entry(i)
		for j := range fs {
			if fs[j].Name == name {
				fv = handleAsText(fv, &fs[j])
				break
			}
		}
		out = append(out, Field{Name: name, Value: fv})
	}
	return MapValue(out...)
}

// HandlesAsTextFor is HandlesAsText for a value of any type that f
// describes (a resource's Schema, a page's): a struct's fields, a list's
// items and a map's entries with handles as text.
func HandlesAsTextFor(v Value, f *FieldSchema) Value {
	if f == nil {
		return v
	}
	return handleAsText(v, f)
}

// handleAsText is one field's value with its schema f, handles as text.
func handleAsText(v Value, f *FieldSchema) Value {
	switch {
	case f.Kind == "entity" && (v.Kind() == KindInt || v.Kind() == KindUint):
		return StringValue(EntityID(uint64(v.Int()) | v.Uint()).String())
	case v.Kind() == KindMap && f.Kind == "map" && f.Elem != nil:
		out := make([]Field, v.Len())
		for i := range out {
			name, ev := v.Entry(i)
			out[i] = Field{Name: name, Value: handleAsText(ev, f.Elem)}
		}
		return MapValue(out...)
	case v.Kind() == KindMap:
		return HandlesAsText(v, f.Fields)
	case v.Kind() == KindList && f.Elem != nil:
		items := make([]Value, v.Len())
		for i := range items {
			items[i] = handleAsText(v.Index(i), f.Elem)
		}
		return ListValue(items...)
	}
	return v
}
