package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// Resources as data: a resource (or any value inside it, by path) read as
// a tree, a page of its children at a time: a struct's fields, a list's
// items, a map's entries. A one-off GetResource, or a subscription
// (Subscribe with w "resource") that sends the page again as it changes.

// SubResource subscribes to a page of a resource: Subscribe's r names the
// resource, p the path inside it, o and l the window of its children.
const SubResource = "resource"

// Message types of resource pages.
const (
	TypeGetResource  Type = 20 // client: a page of a resource, or the value at a path whole
	TypeResourcePage Type = 76 // agent: the answer
)

// Bounds of a resource request, checked as it arrives (see Limits).
const (
	// MaxResourceItems bounds the children of one resource page.
	MaxResourceItems = 1000
	// MaxWholeResourceBytes bounds the game memory a whole value (a
	// GetResource with all) may hold: larger values are read by path and
	// page.
	MaxWholeResourceBytes = 4 << 20
)

// ResourceLimit is the children a resource page's limit l asks for: l, or
// DefaultPageLimit when l is 0.
func ResourceLimit(l int) int { return PageLimit(l) }

// GetResource asks once for a page of the value at Path in the resource
// Name (its short name, as a Summary lists it), or with All for that
// value whole.
type GetResource struct {
	ID     uint32 `msgpack:"id"`
	Name   string `msgpack:"n"`
	Path   string `msgpack:"p,omitempty"`
	Offset int    `msgpack:"o,omitempty"`
	Limit  int    `msgpack:"l,omitempty"`
	All    bool   `msgpack:"all,omitempty"`
}

// ResourcePage is the value at a path in a resource: its children from
// Offset, each with its key, kind and value (lists and maps inside cut
// short, as in a Summary), or a value that has no children whole in Value.
type ResourcePage struct {
	Sub    uint32         `msgpack:"sub"` // subscription id, or the GetResource id
	Tick   uint64         `msgpack:"t"`
	Name   string         `msgpack:"n"`
	Path   string         `msgpack:"p,omitempty"`
	Kind   string         `msgpack:"k"`            // the value's kind, as a FieldSchema's: struct, slice, array, map, entity, int...
	GoType string         `msgpack:"ty,omitempty"` // its Go type
	Total  int            `msgpack:"tot"`          // its children: a struct's fields, a list's items, a map's entries
	Offset int            `msgpack:"o"`
	Items  []ResourceItem `msgpack:"it,omitempty"`
	// Value is the value itself when it has no children (a number, a
	// handle, a string), and the whole value for a GetResource with all.
	Value Value `msgpack:"v"`
	// Schema describes the value (entity fields and items: see HandlesAsText).
	Schema *FieldSchema `msgpack:"fs,omitempty"`
	// Unordered: a map too large to sort on the game's time (more than
	// MaxSortedKeys entries) is paged in Go's map order, which may change
	// between frames.
	Unordered bool `msgpack:"uo,omitempty"`
	// Written is who last changed the value at Path, where the agent saw
	// it change (see ResourceItem.Written).
	Written *Provenance `msgpack:"wr,omitempty"`
}

// ResourceItem is one child of a resource page's value.
type ResourceItem struct {
	Key   string `msgpack:"k"`             // a field's name, an item's index, a map entry's key as text
	Kind  string `msgpack:"kd"`            // as a FieldSchema's; "nil" for a nil slice, map or pointer
	Len   int    `msgpack:"len,omitempty"` // a struct's fields, a list's items, a map's entries
	Value Value  `msgpack:"v"`
	// Written is who last changed the item (a system, "outside the
	// schedule", a client) and in which frame, where the agent saw it
	// change: a field, or an item of a list, whose memory holds no
	// pointers, compared after each system that declares it writes the
	// resource while a client is attached. Absent where the agent did not
	// see it change (Seen is always true).
	Written *Provenance `msgpack:"wr,omitempty"`
}

// MaxSortedKeys bounds the entries of a map an agent sorts by key for a
// page or a frame: larger maps come in Go's order (Unordered).
const MaxSortedKeys = 4096

func (*GetResource) Type() Type          { return TypeGetResource }
func (*ResourcePage) Type() Type         { return TypeResourcePage }
func (m *GetResource) RequestID() uint32 { return m.ID }

// Keyed reports whether the page's children are reached by [key] (a
// list's items, a map's entries) rather than .Field.
func (p *ResourcePage) Keyed() bool { return p.Kind != "struct" }

// ItemPath is the path of the page's item i.
func (p *ResourcePage) ItemPath(i int) string {
	return ChildPath(p.Path, p.Items[i].Key, p.Keyed())
}

// Schema is the resource's type: Type for one that is not a struct, else
// a struct of its Fields.
func (r *Resource) Schema() *FieldSchema {
	if r.Type != nil {
		return r.Type
	}
	return &FieldSchema{Kind: "struct", Fields: r.Fields}
}

// ChildSchema is the schema of the child key of a value that s describes
// (a field by name, a list's or map's element), or nil.
func ChildSchema(s *FieldSchema, key string) *FieldSchema {
	if s == nil {
		return nil
	}
	switch s.Kind {
	case "struct":
		for i := range s.Fields {
			if s.Fields[i].Name == key {
				return &s.Fields[i]
			}
		}
		return nil
	}
	return s.Elem
}

// SchemaAt walks a path's steps from s, the schema of the value at its
// start; nil where the schema stops (a pointer, an interface).
func SchemaAt(s *FieldSchema, steps []PathStep) *FieldSchema {
	for _, st := range steps {
		key := st.Name
		if st.Keyed {
			key = st.Key
		}
		if s = ChildSchema(s, key); s == nil {
			return nil
		}
	}
	return s
}

// KindOf is a value's kind as a FieldSchema names it: the schema's, or,
// where it says nothing more (a pointer, an interface, no schema), the
// value's own.
func KindOf(s *FieldSchema, v Value) string {
	if v.Kind() == KindNil {
		return "nil"
	}
	if s != nil && s.Kind != "pointer" && s.Kind != "other" && s.Kind != "" {
		return s.Kind
	}
	switch v.Kind() {
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindUint:
		return "uint"
	case KindFloat:
		return "float"
	case KindString:
		return "string"
	case KindBytes:
		return "bytes"
	case KindList:
		return "slice"
	}
	return "map"
}

// HasChildren reports whether a value of this kind is shown a child at a
// time.
func HasChildren(kind string) bool {
	switch kind {
	case "struct", "slice", "array", "map":
		return true
	}
	return false
}

// ChildWindow is the one rule of which children a resource page lists,
// the agent's from the game's memory and a recording's reader's from a
// kept value alike: of total children of a value of kind, those from
// offset, at most ResourceLimit(limit), paged as rows are (Pager). A
// map of more than MaxSortedKeys entries is listed in Go's order, which
// changes from one look to the next: it is unordered, and offers no page
// past the sorting bound (first, the page's offset, is cut to it).
func ChildWindow(kind string, total, offset, limit int) (first, lo, hi int, unordered bool) {
	first = max(offset, 0)
	if kind == "map" && total > MaxSortedKeys {
		unordered, first = true, min(first, MaxSortedKeys)
	}
	p := NewPager(first, ResourceLimit(limit))
	lo, hi = p.Meet(total, 0)
	return first, lo, max(lo, hi), unordered
}

// PageOfValue is what an agent answers for the value at path in a
// resource whose whole value v and schema s a client holds (a recording
// keeps resources whole): the same page, from the value rather than the
// game's memory.
func PageOfValue(name string, v Value, s *FieldSchema, path string, offset, limit int, all bool) (*ResourcePage, error) {
	steps, err := ParsePath(path)
	if err != nil {
		return nil, err
	}
	for _, st := range steps {
		if v, err = v.step(st); err != nil {
			return nil, err
		}
	}
	s = SchemaAt(s, steps)
	p := &ResourcePage{Name: name, Path: path, Kind: KindOf(s, v), Offset: offset, Schema: s}
	if s != nil {
		p.GoType = s.Type
	}
	if all || !HasChildren(p.Kind) {
		p.Value = v
		return p, nil
	}
	p.Total = v.Len()
	first, lo, hi, unordered := ChildWindow(p.Kind, p.Total, offset, limit)
	p.Offset, p.Unordered = first, unordered
	for i := lo; i < hi; i++ {
		var key string
		var c Value
		if v.Kind() == KindList {
			key, c = strconv.Itoa(i), v.Index(i)
		} else {
			key, c = v.Entry(i)
		}
		p.Items = append(p.Items, ItemOf(key, c, ChildSchema(s, key), c.Len()))
	}
	return p, nil
}

// ItemOf is a page's child: its key, value, length (the true one: the
// value may be cut) and kind from its schema s.
func ItemOf(key string, v Value, s *FieldSchema, n int) ResourceItem {
	it := ResourceItem{Key: key, Kind: KindOf(s, v), Value: v}
	if HasChildren(it.Kind) {
		it.Len = n
	}
	return it
}

// SplitResourcePath splits "Grid.Cells[3]" into the resource's name and
// the path inside it.
func SplitResourcePath(s string) (name, path string) {
	i := strings.IndexAny(s, ".[")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimPrefix(s[i:], ".")
}

// NoResource is the refusal of a resource name that is not among names.
func NoResource(name string, names []string) string {
	if len(names) == 0 {
		return fmt.Sprintf("no resource %s: the world has none", name)
	}
	return fmt.Sprintf("no resource %s; the world has %s", name, strings.Join(names, ", "))
}

// FindResource is the resource named name (as a Summary names it) in rs,
// or an error naming the ones there are.
func FindResource(rs []Resource, name string) (*Resource, error) {
	names := make([]string, len(rs))
	for i := range rs {
		if rs[i].Name == name {
			return &rs[i], nil
		}
		names[i] = rs[i].Name
	}
	return nil, fmt.Errorf("%s", NoResource(name, names))
}
