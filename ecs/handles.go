package ecs

import (
	"reflect"
	"sort"
	"unsafe"
)

// Handles stored in values: where in a type an Entity can sit (a plan,
// made once per type), and a scan that reads them out of components and
// resources a budget at a time, for a tool looking for handles to
// despawned entities. Only what a tool shows is read: exported fields
// (a relation's target is kept live by the kernel, not read).

// handlePlan is where handles sit in a value of one type: at fixed
// offsets, in lists (slices, and arrays, at fixed offsets) of values with
// a plan of their own, and behind maps, pointers and interfaces, walked by
// reflection.
type handlePlan struct {
	spots []handleSpot
	lists []handleList
	deep  []handleDeep
}

// handleSpot is a handle at off, reached by the field path steps.
type handleSpot struct {
	off  uintptr
	path []HandleStep
}

// handleList is a list at off (a slice's header, or an array of n items)
// whose items, size bytes apart, hold handles as elem plans.
type handleList struct {
	off   uintptr
	path  []HandleStep
	array int // items of an array; -1 for a slice
	size  uintptr
	elem  *handlePlan
}

// handleDeep is a map, pointer or interface at off of type typ that may
// hold handles.
type handleDeep struct {
	off  uintptr
	path []HandleStep
	typ  reflect.Type
}

// HandleStep is one step of the path to a handle inside a value: a field
// by Name, an item of a list by Index, or a map entry by Key (IsKey: the
// handle is the key itself).
type HandleStep struct {
	Name  string
	Index int
	Key   reflect.Value
	IsKey bool
}

// empty reports whether values of the plan's type hold no handle.
func (p *handlePlan) empty() bool {
	return p == nil || len(p.spots) == 0 && len(p.lists) == 0 && len(p.deep) == 0
}

// handlePlans caches each type's plan (nil: it holds no handle).
type handlePlans map[reflect.Type]*handlePlan

// of is t's plan, made on first use.
func (hp handlePlans) of(t reflect.Type) *handlePlan {
	if p, ok := hp[t]; ok {
		return p
	}
	hp[t] = nil // a type that holds itself through a pointer: no plan while it is made
	p := &handlePlan{}
	hp.add(p, t, 0, nil)
	if p.empty() {
		p = nil
	}
	hp[t] = p
	return p
}

// add puts into p where handles sit in a value of type t at off.
func (hp handlePlans) add(p *handlePlan, t reflect.Type, off uintptr, path []HandleStep) {
	if t == entityType {
		p.spots = append(p.spots, handleSpot{off, path})
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Type != relationType {
				hp.add(p, f.Type, off+f.Offset, append(path[:len(path):len(path)], HandleStep{Name: f.Name}))
			}
		}
	case reflect.Array:
		if elem := hp.of(t.Elem()); elem != nil && t.Len() > 0 {
			p.lists = append(p.lists, handleList{off: off, path: path, array: t.Len(), size: t.Elem().Size(), elem: elem})
		}
	case reflect.Slice:
		if elem := hp.of(t.Elem()); elem != nil {
			p.lists = append(p.lists, handleList{off: off, path: path, array: -1, size: t.Elem().Size(), elem: elem})
		}
	case reflect.Map:
		if hp.of(t.Key()) != nil || hp.of(t.Elem()) != nil {
			p.deep = append(p.deep, handleDeep{off, path, t})
		}
	case reflect.Pointer:
		if hp.of(t.Elem()) != nil {
			p.deep = append(p.deep, handleDeep{off, path, t})
		}
	case reflect.Interface:
		p.deep = append(p.deep, handleDeep{off, path, t})
	}
}

// FoundHandle is a handle a scan found to name no live entity: in
// component Component of entity Holder, or, when Resource is set, in the
// resource of that short name (Holder and Component then mean nothing),
// at Path inside it (Path may be shared with the scan: do not change it).
type FoundHandle struct {
	Holder    Entity
	Component ComponentID
	Resource  string
	Path      []HandleStep
	Handle    Entity
}

// HandleScan reads the handles stored in a world's components and
// resources a budget at a time, from where it stopped, and reports each
// that names no live entity. A pass visits every table, sparse component
// and resource once; entities that move while a pass goes on may be read
// twice or not at all until the next pass. Use it on the goroutine that
// changes the world, between changes.
type HandleScan struct {
	w     *World
	plans handlePlans
	phase int // 0: tables, 1: sparse components, 2: resources
	i, j  int // the table (sparse component, resource), the column within it
	row   int
	res   []reflect.Type // the resources of the pass, in name order; nil until the phase starts
	// A resource is read from where the last step stopped: its part (0:
	// its fixed places, then its lists, then its maps and pointers), the
	// item of that list, the place in that map.
	part, item int
	iter       *reflect.MapIter
	trail      []HandleStep
	found      func(FoundHandle)
	units      int
	start      int // units when the component value being read began
	cut        int // component values cut short in the pass under way
	lastCut    int
}

// maxValueUnits bounds what one component's value may cost a pass: a
// value holding more handles (a component with a huge list) is read up to
// there, and counted (Cut).
const maxValueUnits = 1 << 18

// Cut is how many component values the last complete pass read only in
// part, each past maxValueUnits (262,144) handles.
func (s *HandleScan) Cut() int { return s.lastCut }

// inspectNewHandleScan is [Inspection.NewHandleScan].
func (w *World) inspectNewHandleScan() *HandleScan {
	return &HandleScan{w: w, plans: handlePlans{}}
}

// Step reads handles until it has read budget of them (a value's handles
// are read together, so it may read a value's worth more), calling found
// for each that names no live entity, and reports how many it read and
// whether a pass ended.
func (s *HandleScan) Step(budget int, found func(FoundHandle)) (read int, passDone bool) {
	s.found, s.units = found, 0
	defer func() { s.found = nil }()
	for s.units < budget {
		switch s.phase {
		case 0:
			s.tables(budget)
		case 1:
			s.sparse(budget)
		case 2:
			s.resources(budget)
		default:
			s.phase, s.i, s.j, s.row, s.res = 0, 0, 0, 0, nil
			s.lastCut, s.cut = s.cut, 0
			return s.units, true
		}
	}
	return s.units, false
}

// tables reads the table columns whose type holds handles.
func (s *HandleScan) tables(budget int) {
	for ; s.i < len(s.w.tables); s.i, s.j, s.row = s.i+1, 0, 0 {
		t := s.w.tables[s.i]
		for ; s.j < len(t.ids); s.j, s.row = s.j+1, 0 {
			info := &s.w.reg.regs[t.ids[s.j]].info
			plan := s.plans.of(info.Type)
			if plan == nil || s.row >= t.len() {
				continue
			}
			base := t.cols[s.j].value(0).Addr().UnsafePointer()
			if plan.flat() { // handles at fixed places only: read in place, row after row
				s.flatRows(plan, base, info.Size, t.entities, info.ID, budget)
				if s.row < t.len() {
					return
				}
				continue
			}
			for ; s.row < t.len(); s.row++ {
				if s.units >= budget {
					return
				}
				s.value(plan, unsafe.Add(base, uintptr(s.row)*info.Size), t.entities[s.row], info.ID, "")
			}
		}
	}
	s.phase, s.i = 1, 0
}

// sparse reads the sparse components whose type holds handles.
func (s *HandleScan) sparse(budget int) {
	for ; s.i < len(s.w.sparse); s.i, s.row = s.i+1, 0 {
		st := s.w.sparse[s.i]
		if st == nil {
			continue
		}
		info := &s.w.reg.regs[s.i].info
		plan := s.plans.of(info.Type)
		if plan == nil || s.row >= st.length() {
			continue
		}
		v, _ := st.value(st.entityAt(0))
		base := v.Addr().UnsafePointer()
		for ; s.row < st.length(); s.row++ {
			if s.units >= budget {
				return
			}
			s.value(plan, unsafe.Add(base, uintptr(s.row)*info.Size), st.entityAt(s.row), info.ID, "")
		}
	}
	s.phase, s.i = 2, 0
}

// resources reads the resources whose type holds handles, each from where
// the last step stopped in it: a grid of a million handles takes as many
// steps as its handles need.
func (s *HandleScan) resources(budget int) {
	if s.res == nil {
		s.res = make([]reflect.Type, 0, len(s.w.resources))
		for t := range s.w.resources {
			s.res = append(s.res, t)
		}
		sort.Slice(s.res, func(a, b int) bool { return typeName(s.res[a]) < typeName(s.res[b]) })
	}
	for ; s.i < len(s.res); s.i, s.part, s.item, s.iter = s.i+1, 0, 0, nil {
		t := s.res[s.i]
		p, ok := s.w.resources[t]
		plan := s.plans.of(t)
		if !ok || plan == nil {
			continue // removed since the pass began, or no handles
		}
		if !s.resource(plan, reflect.ValueOf(p).UnsafePointer(), shortName(t), budget) {
			return
		}
	}
	s.phase = 3
}

// resource reads one resource's handles from where the last step stopped,
// until the budget is spent; it reports whether it read them all.
func (s *HandleScan) resource(plan *handlePlan, p unsafe.Pointer, name string, budget int) bool {
	if s.part == 0 {
		s.value(&handlePlan{spots: plan.spots}, p, Entity{}, 0, name)
		s.part = 1
	}
	for ; s.part-1 < len(plan.lists); s.part, s.item = s.part+1, 0 {
		l := plan.lists[s.part-1]
		data, n := listOf(l, p)
		if l.elem.flat() { // handles at fixed places in each item (a grid of handles): read in place
			if !s.flatItems(l, data, n, name, budget) {
				return false
			}
			continue
		}
		for ; s.item < n; s.item++ {
			if s.units >= budget {
				return false
			}
			s.trail, s.start = append(append(s.trail[:0], l.path...), HandleStep{Index: s.item}), s.units
			if len(l.elem.spots) == 0 {
				s.units++
			}
			s.walk(l.elem, unsafe.Add(data, uintptr(s.item)*l.size), Entity{}, 0, name, 1)
		}
	}
	for ; s.part-1-len(plan.lists) < len(plan.deep); s.part, s.iter = s.part+1, nil {
		d := plan.deep[s.part-1-len(plan.lists)]
		v := reflect.NewAt(d.typ, unsafe.Add(p, d.off)).Elem()
		s.trail = append(s.trail[:0], d.path...)
		if v.Kind() != reflect.Map {
			s.deep(v, Entity{}, 0, name, 1)
			continue
		}
		if s.iter == nil {
			s.iter = v.MapRange()
		}
		for s.iter.Next() {
			s.start = s.units
			s.mapEntry(s.iter, v.Type(), Entity{}, 0, name, 1)
			if s.units >= budget {
				return false
			}
		}
	}
	return true
}

// flatItems reads the handles of a resource's list l whose items hold
// them at fixed places, from s.item, until the budget is spent (false) or
// the list ends; the trail to a handle is made only for one found dead.
func (s *HandleScan) flatItems(l handleList, data unsafe.Pointer, n int, name string, budget int) bool {
	for ; s.item < n; s.item++ {
		if s.units >= budget {
			return false
		}
		q := unsafe.Add(data, uintptr(s.item)*l.size)
		for i := range l.elem.spots {
			sp := &l.elem.spots[i]
			s.units++
			if e := *(*Entity)(unsafe.Add(q, sp.off)); !e.IsZero() && !s.w.Alive(e) {
				s.trail, s.start = append(append(s.trail[:0], l.path...), HandleStep{Index: s.item}), s.units
				s.report(Entity{}, 0, name, sp.path, e)
			}
		}
	}
	return true
}

// listOf is where list l's items start in the value at p, and how many.
func listOf(l handleList, p unsafe.Pointer) (unsafe.Pointer, int) {
	data, n := unsafe.Add(p, l.off), l.array
	if n < 0 {
		h := (*sliceHeader)(data)
		data, n = h.ptr, h.len
	}
	return data, n
}

// flat reports whether the plan's handles all sit at fixed offsets.
func (p *handlePlan) flat() bool { return len(p.lists) == 0 && len(p.deep) == 0 }

// flatRows reads a flat plan's handles in rows from s.row of a column at
// base (values size bytes apart) held by ents, until the budget is spent.
func (s *HandleScan) flatRows(plan *handlePlan, base unsafe.Pointer, size uintptr, ents []Entity, comp ComponentID, budget int) {
	recs := s.w.records
	for ; s.row < len(ents); s.row++ {
		if s.units >= budget {
			return
		}
		p := unsafe.Add(base, uintptr(s.row)*size)
		for i := range plan.spots {
			sp := &plan.spots[i]
			e := *(*Entity)(unsafe.Add(p, sp.off))
			if e.IsZero() {
				continue
			}
			if int(e.index) < len(recs) {
				if rec := &recs[e.index]; rec.gen == e.gen && rec.table != deadTable {
					continue
				}
			}
			s.found(FoundHandle{Holder: ents[s.row], Component: comp, Path: sp.path, Handle: e})
		}
		s.units += len(plan.spots)
	}
}

// value reads the handles of one value at p, whose plan is plan.
func (s *HandleScan) value(plan *handlePlan, p unsafe.Pointer, holder Entity, comp ComponentID, resource string) {
	s.trail, s.start = s.trail[:0], s.units
	s.walk(plan, p, holder, comp, resource, 0)
}

// tooMuch reports whether the value being read has cost its most, and
// counts it cut short the first time.
func (s *HandleScan) tooMuch() bool {
	if s.units-s.start <= maxValueUnits {
		return false
	}
	if s.start >= 0 {
		s.cut++
		s.start = -1 - maxValueUnits // counted once: a far start keeps it too much
	}
	return true
}

// walk reads plan's handles in the value at p, the trail leading to it.
func (s *HandleScan) walk(plan *handlePlan, p unsafe.Pointer, holder Entity, comp ComponentID, resource string, depth int) {
	if depth > maxHandleDepth || s.tooMuch() {
		return
	}
	for _, sp := range plan.spots {
		s.units++
		if e := *(*Entity)(unsafe.Add(p, sp.off)); !e.IsZero() && !s.w.Alive(e) {
			s.report(holder, comp, resource, sp.path, e)
		}
	}
	for _, l := range plan.lists {
		data, n := listOf(l, p)
		mark := len(s.trail)
		s.trail = append(s.trail, l.path...)
		bare := len(l.elem.spots) == 0 // items whose handles sit deeper: each costs one read of its own
		for i := 0; i < n && !s.tooMuch(); i++ {
			if bare {
				s.units++
			}
			s.trail = append(s.trail[:mark+len(l.path)], HandleStep{Index: i})
			s.walk(l.elem, unsafe.Add(data, uintptr(i)*l.size), holder, comp, resource, depth+1)
		}
		s.trail = s.trail[:mark]
	}
	for _, d := range plan.deep {
		mark := len(s.trail)
		s.trail = append(s.trail, d.path...)
		s.deep(reflect.NewAt(d.typ, unsafe.Add(p, d.off)).Elem(), holder, comp, resource, depth+1)
		s.trail = s.trail[:mark]
	}
}

// maxHandleDepth bounds how deep a scan follows lists, maps and pointers
// into a value (a list that holds itself, through a pointer).
const maxHandleDepth = 16

// deep reads the handles behind a map, a pointer or an interface.
func (s *HandleScan) deep(v reflect.Value, holder Entity, comp ComponentID, resource string, depth int) {
	switch v.Kind() {
	case reflect.Map:
		for it := v.MapRange(); it.Next() && !s.tooMuch(); {
			s.mapEntry(it, v.Type(), holder, comp, resource, depth)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			if plan := s.plans.of(v.Type().Elem()); plan != nil {
				s.walk(plan, v.UnsafePointer(), holder, comp, resource, depth)
			}
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		c := v.Elem()
		if c.Kind() == reflect.Pointer {
			s.deep(c, holder, comp, resource, depth)
			return
		}
		if plan := s.plans.of(c.Type()); plan != nil {
			a := reflect.New(c.Type()).Elem() // a value in an interface is not addressable: read a copy
			a.Set(c)
			s.walk(plan, a.Addr().UnsafePointer(), holder, comp, resource, depth)
		}
	}
}

// mapEntry reads the handles in the key and the value of the entry the
// iterator it is at, in a map of type t.
func (s *HandleScan) mapEntry(it *reflect.MapIter, t reflect.Type, holder Entity, comp ComponentID, resource string, depth int) {
	s.units++
	keyPlan, valPlan := s.plans.of(t.Key()), s.plans.of(t.Elem())
	key := reflect.New(t.Key()).Elem() // the trail keeps the key: a copy of its own
	key.SetIterKey(it)
	mark := len(s.trail)
	if keyPlan != nil {
		s.trail = append(s.trail[:mark], HandleStep{Key: key, IsKey: true})
		s.walk(keyPlan, key.Addr().UnsafePointer(), holder, comp, resource, depth)
	}
	if valPlan != nil {
		val := reflect.New(t.Elem()).Elem()
		val.SetIterValue(it)
		s.trail = append(s.trail[:mark], HandleStep{Key: key})
		s.walk(valPlan, val.Addr().UnsafePointer(), holder, comp, resource, depth)
	}
	s.trail = s.trail[:mark]
}

// report passes a found handle on, its path copied out of the trail.
func (s *HandleScan) report(holder Entity, comp ComponentID, resource string, tail []HandleStep, e Entity) {
	path := make([]HandleStep, 0, len(s.trail)+len(tail))
	path = append(append(path, s.trail...), tail...)
	s.found(FoundHandle{Holder: holder, Component: comp, Resource: resource, Path: path, Handle: e})
}
