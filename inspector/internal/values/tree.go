package values

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// A value read as a tree, a page of children at a time: what a resource
// page shows of the game's memory (see protocol.ResourcePage).

// TypeSchema is the schema of type t, described once per type.
func TypeSchema(t reflect.Type) *protocol.FieldSchema {
	if s, ok := typeSchemas.Load(t); ok {
		return s.(*protocol.FieldSchema)
	}
	f := ecs.Describe(t)
	s := fieldSchema(&f)
	typeSchemas.Store(t, &s)
	return &s
}

var typeSchemas sync.Map // reflect.Type -> *protocol.FieldSchema

// Walk follows a path's steps from v to the value they name, through
// pointers and interfaces; the error says which step fails.
func Walk(v reflect.Value, steps []protocol.PathStep) (reflect.Value, error) {
	at := ""
	for _, st := range steps {
		v = deref(v)
		key := st.Name
		if st.Keyed {
			key = st.Key
		}
		c, err := child(v, key, st.Keyed)
		if err != nil {
			if at == "" {
				return v, err
			}
			return v, fmt.Errorf("%s: %w", at, err)
		}
		v, at = c, protocol.ChildPath(at, key, st.Keyed)
	}
	return deref(v), nil
}

// deref is what v holds behind pointers and interfaces (an invalid value
// for nil).
func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// child is v's child key: a field (by name, dotted or in brackets), a
// list's item, a map's entry.
func child(v reflect.Value, key string, keyed bool) (reflect.Value, error) {
	if !v.IsValid() {
		return v, fmt.Errorf("nil has no %s", key)
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if name, ok := FieldName(t, i); ok && name == key {
				return fieldValue(v, i), nil
			}
		}
		return v, fmt.Errorf("a %s has no field %s", t, key)
	case reflect.Slice, reflect.Array:
		i, err := strconv.Atoi(key)
		if !keyed || err != nil || i < 0 || i >= v.Len() {
			return v, fmt.Errorf("a list of %d items has no item [%s]", v.Len(), key)
		}
		return v.Index(i), nil
	case reflect.Map:
		if k, ok := mapKey(v, key); ok {
			return v.MapIndex(k), nil
		}
		return v, fmt.Errorf("a map of %d entries has no key %q", v.Len(), key)
	}
	return v, fmt.Errorf("a %s has no %s inside", v.Type(), key)
}

// mapKey finds the key of map v whose text is key: parsed into the key
// type when it is a string, number or handle; else among the keys, when
// the map is small enough to look through.
func mapKey(v reflect.Value, key string) (reflect.Value, bool) {
	kt := v.Type().Key()
	k := reflect.New(kt).Elem()
	var err error
	switch {
	case kt == entityType:
		var id protocol.EntityID
		if id, err = protocol.ParseEntityID(key); err == nil {
			k.Set(reflect.ValueOf(Entity(id)))
		}
	case kt.Kind() == reflect.String:
		k.SetString(key)
	case k.CanInt():
		var n int64
		n, err = strconv.ParseInt(key, 10, 64)
		k.SetInt(n)
	case k.CanUint():
		var n uint64
		n, err = strconv.ParseUint(key, 10, 64)
		k.SetUint(n)
	default:
		if v.Len() > protocol.MaxSortedKeys {
			return k, false
		}
		for _, c := range v.MapKeys() {
			if KeyText(c) == key {
				return c, true
			}
		}
		return k, false
	}
	return k, err == nil && v.MapIndex(k).IsValid()
}

// Page is the page of the value at path in resource name (rv, the game's
// memory): children [offset, offset+limit) in brief (Preview), each with
// its key, kind and length, or a value without children whole. It reads
// at most offset+limit children, and of a map at most
// protocol.MaxSortedKeys+limit keys (to sort them, or, for a bigger map,
// to page in Go's order no further than that), so what it costs is
// bounded by the request, never by the value. Children that hold no
// pointers are copied (a list's window is one memmove) and made into
// items by Build, off the game goroutine; the rest are made now.
func Page(name string, rv reflect.Value, path string, offset, limit int) (*Window, error) {
	steps, err := protocol.ParsePath(path)
	if err != nil {
		return nil, err
	}
	v, err := Walk(rv, steps)
	if err != nil {
		return nil, err
	}
	w := &Window{page: &protocol.ResourcePage{Name: name, Path: path, Offset: offset, Kind: "nil"}}
	p := w.page
	if !v.IsValid() {
		return w, nil
	}
	p.Schema = TypeSchema(v.Type())
	p.Kind, p.GoType = p.Schema.Kind, p.Schema.Type
	if !protocol.HasChildren(p.Kind) { // a number, a string, a handle
		p.Value = Of(v)
		return w, nil
	}
	p.Total = children(v)
	first, lo, hi, unordered := protocol.ChildWindow(p.Kind, p.Total, offset, limit)
	p.Offset, p.Unordered = first, unordered
	switch v.Kind() {
	case reflect.Struct:
		t, n := v.Type(), 0
		for i := range t.NumField() {
			if name, ok := FieldName(t, i); ok {
				if n >= lo && n < hi {
					w.add(name, fieldValue(v, i))
				}
				n++
			}
		}
	case reflect.Slice, reflect.Array:
		if !HoldsPointers(v.Type().Elem()) {
			if !v.CanAddr() { // an array held in a map: sliced from a copy
				a := reflect.New(v.Type()).Elem()
				a.Set(v)
				v = a
			}
			w.vals = reflect.MakeSlice(reflect.SliceOf(v.Type().Elem()), hi-lo, hi-lo)
			reflect.Copy(w.vals, v.Slice(lo, hi))
			return w, nil
		}
		for i := lo; i < hi; i++ {
			w.add(strconv.Itoa(i), v.Index(i))
		}
	case reflect.Map:
		keys, vals, _ := Entries(v, lo, hi-lo, false)
		if !HoldsPointers(keys.Type().Elem()) && !HoldsPointers(vals.Type().Elem()) {
			w.keys, w.vals = keys, vals
			return w, nil
		}
		for i := range keys.Len() {
			w.add(KeyText(keys.Index(i)), vals.Index(i))
		}
	}
	return w, nil
}

// Window is a resource page as the game goroutine takes it: the page,
// with the children made into items, or copies of them (plain memory) for
// Build to make into items on another goroutine.
type Window struct {
	page       *protocol.ResourcePage
	keys, vals reflect.Value // copies: a map's keys and values, or a list's items (keys invalid)
}

// add makes the child key of the page's value into an item.
func (w *Window) add(key string, c reflect.Value) {
	n, cs := 0, protocol.ChildSchema(w.page.Schema, key)
	if d := deref(c); d.IsValid() {
		n = children(d)
		if cs == nil || cs.Kind == "pointer" || cs.Kind == "other" { // what it points at, or holds
			cs = TypeSchema(d.Type())
		}
	}
	w.page.Items = append(w.page.Items, protocol.ItemOf(key, Preview(c), cs, n))
}

// Build is the page, its copied children made into items; call it once.
func (w *Window) Build() *protocol.ResourcePage {
	if w.vals.IsValid() {
		for i := range w.vals.Len() {
			key := strconv.Itoa(w.page.Offset + i)
			if w.keys.IsValid() {
				key = KeyText(w.keys.Index(i))
			}
			w.add(key, w.vals.Index(i))
		}
		w.vals = reflect.Value{}
	}
	return w.page
}

// Keys are the keys of the page's items, in order, where the game
// goroutine knows them before Build (every page but a map's copies).
func (w *Window) Keys() []string {
	if w.vals.IsValid() {
		if w.keys.IsValid() {
			return nil
		}
		keys := make([]string, w.vals.Len())
		for i := range keys {
			keys[i] = strconv.Itoa(w.page.Offset + i)
		}
		return keys
	}
	keys := make([]string, len(w.page.Items))
	for i, it := range w.page.Items {
		keys[i] = it.Key
	}
	return keys
}

// Size guesses the page's encoded bytes.
func (w *Window) Size() int64 {
	n := len(w.page.Items)
	if w.vals.IsValid() {
		n += w.vals.Len()
	}
	return 256 + 96*int64(n)
}

// children is how many children a page of v lists: a struct's fields, a
// list's items, a map's entries; 0 for the rest.
func children(v reflect.Value) int {
	if v.Type() == entityType {
		return 0
	}
	switch v.Kind() {
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			if _, ok := FieldName(v.Type(), i); ok {
				n++
			}
		}
		return n
	case reflect.Slice, reflect.Array, reflect.Map:
		return v.Len()
	}
	return 0
}

// Fits reports whether v holds at most maxBytes of memory in at most
// maxParts separate parts (slice elements, map entries, pointees that
// themselves hold pointers), looking no further than that: whether a copy
// of it is cheap enough to make on the game's time. A pointee or map met
// again (a cycle, a value shared) counts once. size guesses the bytes its
// wire form takes.
func Fits(v reflect.Value, maxBytes, maxParts int) (size int64, ok bool) {
	b := budget{bytes: maxBytes, parts: maxParts}
	b.walk(v)
	return int64(maxBytes-b.bytes) + 16*int64(maxParts-b.parts) + 64, b.bytes >= 0 && b.parts >= 0
}

type budget struct {
	bytes, parts int
	// The identities met: the first few in place (most values hold a few
	// lists or pointees), the rest in a map.
	few  [4]identity
	nfew int
	seen map[identity]bool
}

// first reports whether id is met for the first time in this walk.
func (b *budget) first(id identity) bool {
	for _, f := range b.few[:b.nfew] {
		if f == id {
			return false
		}
	}
	if b.seen[id] {
		return false
	}
	if b.nfew < len(b.few) {
		b.few[b.nfew] = id
		b.nfew++
		return true
	}
	if b.seen == nil {
		b.seen = map[identity]bool{}
	}
	b.seen[id] = true
	return true
}

// walk counts v against the budget, stopping once it is spent (every
// step down a pointer or into a list spends a part, so a walk's depth is
// bounded by the parts).
func (b *budget) walk(v reflect.Value) {
	if !v.IsValid() || b.bytes < 0 || b.parts < 0 {
		return
	}
	t := v.Type()
	if !HoldsPointers(t) {
		b.bytes -= int(t.Size())
		return
	}
	b.parts--
	switch v.Kind() {
	case reflect.Slice:
		b.bytes -= int(t.Size())
		if v.IsNil() || !b.first(identityOf(v, v.Len())) {
			return
		}
		if !HoldsPointers(t.Elem()) {
			b.bytes -= v.Len() * int(t.Elem().Size())
			return
		}
		for i := 0; i < v.Len() && b.bytes >= 0 && b.parts >= 0; i++ {
			b.walk(v.Index(i))
		}
	case reflect.Array:
		for i := 0; i < v.Len() && b.bytes >= 0 && b.parts >= 0; i++ {
			b.walk(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			b.walk(v.Field(i))
		}
	case reflect.Map:
		b.bytes -= int(t.Size())
		if v.IsNil() || !b.first(identityOf(v, 0)) {
			return
		}
		b.parts -= v.Len()
		if b.parts < 0 {
			return
		}
		for it := v.MapRange(); it.Next() && b.bytes >= 0 && b.parts >= 0; {
			b.walk(it.Key())
			b.walk(it.Value())
		}
	case reflect.Pointer:
		b.bytes -= int(t.Size())
		if !v.IsNil() && b.first(identityOf(v, 0)) {
			b.walk(v.Elem())
		}
	case reflect.Interface:
		b.bytes -= int(t.Size())
		if !v.IsNil() {
			b.walk(v.Elem())
		}
	default:
		b.bytes -= int(t.Size())
	}
}
