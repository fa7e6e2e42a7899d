package resourcewrites

import (
	"bytes"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Bounds of what the tracker compares: one part, and all parts of all
// resources (their copies and marks), so a look costs at most a
// comparison of MaxBytes.
const (
	MaxPartBytes = 4 << 20
	MaxBytes     = 16 << 20
)

// chunk is the bytes compared at once before a chunk that differs is
// told apart item by item.
const chunk = 4096

// Tracker keeps the writers of the tracked parts of a world's resources.
// Use it on the game goroutine.
type Tracker struct {
	w     *ecs.World
	res   map[string]*resource // by short name
	names []string             // writers, interned: a mark's who is an index
	index map[string]uint16
	epoch uint64 // Fresh moves it: parts of an older epoch take copies again
	bytes int    // tracked, in all
}

// resource is one resource's tracked parts.
type resource struct {
	typ   reflect.Type
	root  unsafe.Pointer
	parts []*part
	why   string // why nothing of it is tracked, if nothing is
}

// part is memory of a resource compared at each look: the resource itself
// (field < 0) or one of its fields, as one item or as a list's items.
type part struct {
	field    int // the field of the resource struct; -1: the resource itself
	name     string
	offset   uintptr
	slice    bool // the memory is a slice's items, found through its header at each look
	list     bool // items told apart (a slice or an array)
	itemSize int
	size     int // the bytes of a part that is not a slice
	epoch    uint64
	copy     []byte   // the memory at the last look
	ticks    []uint64 // per item: the frame of its last change seen (0: none seen)
	who      []uint16 // per item: who made it (Tracker.names)
	why      string   // why it is not tracked, if it is not
}

// New returns a tracker of w's resources.
func New(w *ecs.World) *Tracker {
	return &Tracker{w: w, res: map[string]*resource{}, index: map[string]uint16{}, epoch: 1}
}

// Fresh has the next look at each part take a copy and mark nothing:
// call it when looking resumes after a pause. An item found changed then
// was changed while nobody looked: its writer becomes unknown.
func (t *Tracker) Fresh() { t.epoch++ }

// Refresh follows the world's resources: new ones are tracked, removed
// ones forgotten. Call it once a frame before looking.
func (t *Tracker) Refresh() {
	infos := t.w.Inspect().Resources()
	seen := make(map[string]bool, len(infos))
	for _, info := range infos {
		seen[info.Short] = true
		r := t.res[info.Short]
		if r != nil && r.typ == info.Value.Type() && r.root == info.Value.Addr().UnsafePointer() {
			continue
		}
		if r != nil {
			t.forget(r)
		}
		t.res[info.Short] = t.track(info.Value)
	}
	for name, r := range t.res {
		if !seen[name] {
			t.forget(r)
			delete(t.res, name)
		}
	}
}

// forget gives back r's bytes.
func (t *Tracker) forget(r *resource) {
	for _, p := range r.parts {
		t.bytes -= p.cost()
	}
}

// track lays out the parts of the resource v (addressable).
func (t *Tracker) track(v reflect.Value) *resource {
	r := &resource{typ: v.Type(), root: v.Addr().UnsafePointer()}
	typ := v.Type()
	switch {
	case typ.Kind() == reflect.Struct:
		for i := range typ.NumField() {
			f := typ.Field(i)
			r.parts = append(r.parts, partOf(i, f.Name, f.Offset, f.Type))
		}
	default:
		r.parts = append(r.parts, partOf(-1, "", 0, typ))
	}
	tracked := false
	for _, p := range r.parts {
		tracked = tracked || p.why == ""
	}
	if !tracked {
		r.why = "holds no part the agent compares as memory (maps, pointers and interfaces are not)"
	}
	return r
}

// partOf lays out a part of type typ at offset.
func partOf(field int, name string, offset uintptr, typ reflect.Type) *part {
	p := &part{field: field, name: name, offset: offset, size: int(typ.Size())}
	switch {
	case typ.Kind() == reflect.Slice && !values.HoldsPointers(typ.Elem()):
		p.slice, p.list, p.itemSize = true, true, int(typ.Elem().Size())
	case typ.Kind() == reflect.Array && !values.HoldsPointers(typ.Elem()):
		p.list, p.itemSize = true, int(typ.Elem().Size())
	case !values.HoldsPointers(typ):
		p.itemSize = int(typ.Size())
	default:
		p.why = "holds pointers: not compared as memory"
	}
	if p.why == "" && p.itemSize == 0 {
		p.why = "holds nothing"
	}
	return p
}

// memory is the part's memory now, in place.
func (p *part) memory(r *resource) []byte {
	at := unsafe.Add(r.root, p.offset)
	if p.slice {
		s := (*sliceHeader)(at)
		if s.data == nil || s.len == 0 {
			return nil
		}
		return unsafe.Slice((*byte)(s.data), s.len*p.itemSize)
	}
	return unsafe.Slice((*byte)(at), p.size)
}

// sliceHeader is a slice's header as the runtime lays it out.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// cost is the bytes a part's copy and marks hold.
func (p *part) cost() int { return len(p.copy) + len(p.ticks)*10 }

// Look compares the tracked parts of the resources of the types given
// (nil: every resource; empty: none) with their copies and marks each
// item that changed as by's, in frame tick.
func (t *Tracker) Look(by string, tick uint64, types []reflect.Type) {
	if types != nil && len(types) == 0 {
		return
	}
	for _, r := range t.res {
		if types != nil && !slices.Contains(types, r.typ) {
			continue
		}
		for _, p := range r.parts {
			if p.why == "" {
				t.look(r, p, by, tick)
			}
		}
	}
}

// look compares one part.
func (t *Tracker) look(r *resource, p *part, by string, tick uint64) {
	cur := p.memory(r)
	items := len(cur) / p.itemSize
	if len(cur) > MaxPartBytes || t.bytes-p.cost()+len(cur)+items*10 > MaxBytes {
		t.bytes -= p.cost()
		p.copy, p.ticks, p.who = nil, nil, nil
		p.why = "over the " + protocol.ByteSize(MaxPartBytes) + " a part, or the " + protocol.ByteSize(MaxBytes) + " in all, the agent compares"
		return
	}
	fresh := p.epoch != t.epoch // the first look (nothing to compare with), or the first after a pause
	p.epoch = t.epoch
	var who uint16
	var whoSet bool
	mark := func(i int) {
		if fresh { // changed while nobody looked: who did is not known
			p.ticks[i], p.who[i] = 0, 0
			return
		}
		if !whoSet {
			who, whoSet = t.name(by), true
		}
		p.ticks[i], p.who[i] = tick, who
	}
	t.bytes -= p.cost()
	old := len(p.ticks)
	if items != old { // a slice that grew or shrank: new items are written
		p.ticks = resized(p.ticks, items)
		p.who = resized(p.who, items)
		for i := old; i < items; i++ {
			mark(i)
		}
	}
	same := min(len(cur), len(p.copy))
	for off := 0; off < same; off += chunk {
		end := min(off+chunk, same)
		if bytes.Equal(cur[off:end], p.copy[off:end]) {
			continue
		}
		for i := off / p.itemSize; i*p.itemSize < end; i++ {
			lo, hi := i*p.itemSize, min((i+1)*p.itemSize, same)
			if !bytes.Equal(cur[lo:hi], p.copy[lo:hi]) {
				mark(i)
			}
		}
	}
	p.copy = append(p.copy[:0], cur...)
	t.bytes += p.cost()
}

// resized is s with n items, the first kept.
func resized[T any](s []T, n int) []T {
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		if n > old {
			clear(s[old:])
		}
		return s
	}
	out := make([]T, n)
	copy(out, s)
	return out
}

// name is by's index among the writers.
func (t *Tracker) name(by string) uint16 {
	if i, ok := t.index[by]; ok {
		return i
	}
	if len(t.names) == 1<<16-1 {
		return 0 // past 65,535 writers: the first one's name stands (never met: systems and clients are few)
	}
	t.names = append(t.names, by)
	i := uint16(len(t.names) - 1)
	t.index[by] = i
	return i
}

// WriterOf is who last changed the item of the resource (its short name)
// a handle scan's path leads to, as the tracker saw it; nil when it did
// not see it change (not tracked, not changed since the tracker looked).
func (t *Tracker) WriterOf(resource string, path []ecs.HandleStep) *protocol.Provenance {
	field, index := "", -1
	if len(path) > 0 && path[0].Name != "" {
		field, path = path[0].Name, path[1:]
	}
	if len(path) > 0 && path[0].Name == "" && !path[0].Key.IsValid() {
		index = path[0].Index
	}
	return t.writer(resource, field, index)
}

// WriterAt is WriterOf for a path as the protocol writes it
// (protocol.ParsePath): "Cells[812]" is the field Cells, item 812.
func (t *Tracker) WriterAt(resource string, path []protocol.PathStep) *protocol.Provenance {
	field, index := "", -1
	if len(path) > 0 && !path[0].Keyed {
		field, path = path[0].Name, path[1:]
	}
	if len(path) > 0 && path[0].Keyed {
		if n, err := strconv.Atoi(path[0].Key); err == nil {
			index = n
		}
	}
	return t.writer(resource, field, index)
}

// writer is who last changed item index (-1: the part whole) of the part
// named field ("": the resource itself) of resource.
func (t *Tracker) writer(resource, field string, index int) *protocol.Provenance {
	r := t.res[resource]
	if r == nil {
		return nil
	}
	for _, p := range r.parts {
		if p.why != "" || p.name != field || (p.field < 0) != (field == "") {
			continue
		}
		i := 0
		if p.list {
			if index < 0 {
				return nil
			}
			i = index
		}
		if i >= len(p.ticks) || p.ticks[i] == 0 {
			return nil
		}
		return &protocol.Provenance{Tick: p.ticks[i], By: t.names[p.who[i]], Seen: true}
	}
	return nil
}

// NotTracked says, for each resource or part the tracker does not
// compare, why: "Nav: holds no part ...", "Grid.Index: holds pointers".
func (t *Tracker) NotTracked() []string {
	var out []string
	for name, r := range t.res {
		if r.why != "" {
			out = append(out, name+": "+r.why)
			continue
		}
		for _, p := range r.parts {
			if p.why != "" {
				out = append(out, name+"."+p.name+": "+p.why)
			}
		}
	}
	sort.Strings(out)
	return out
}
