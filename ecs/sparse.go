package ecs

import (
	"reflect"
	"unsafe"
)

// sparseStore is a sparse set seen without its type: the world uses it for
// structural changes, the observation API for reading.
type sparseStore interface {
	has(e Entity) bool
	addZero(e Entity, tick uint32) bool
	remove(e Entity) bool
	length() int
	value(e Entity) (reflect.Value, bool)
	entityAt(i int) Entity
	changedSince(e Entity, since uint32) bool
	addedSince(e Entity, since uint32) bool
	markChanged(e Entity, tick uint32)
	capture(since uint32, shape uint64, full, marks bool, dst *TableCapture)
	shapeCount() uint64
	changedSinceCount(since uint32) int // how many entities were changed after since (ecsdebug)
	ticks(e Entity) (changed, added uint32, ok bool)
	eachChanged(since, until uint32, fn func(e Entity, raw []byte) bool) // pointer-free values only (Inspection.EachChanged)
}

// sparseSet stores the values of a sparse component: a dense array of values
// and their entities, and an index from entity slot to dense position + 1
// (0 = absent). Adding or removing never touches the archetype tables.
type sparseSet[T any] struct {
	id      ComponentID
	index   []uint32
	dense   []T
	ents    []Entity
	changed []uint32
	added   []uint32
	shape   uint64 // counts adds and removes, as table.shape
}

func (s *sparseSet[T]) pos(e Entity) (int, bool) {
	if int(e.index) >= len(s.index) {
		return 0, false
	}
	p := s.index[e.index]
	if p == 0 || s.ents[p-1] != e {
		return 0, false
	}
	return int(p - 1), true
}

func (s *sparseSet[T]) has(e Entity) bool {
	_, ok := s.pos(e)
	return ok
}

func (s *sparseSet[T]) get(e Entity) *T {
	if p, ok := s.pos(e); ok {
		return &s.dense[p]
	}
	return nil
}

// add inserts e with value v; it reports false if e was already present.
func (s *sparseSet[T]) add(e Entity, v T, tick uint32) bool {
	if s.has(e) {
		return false
	}
	if int(e.index) >= len(s.index) {
		// A quarter more, not double: the index never outgrows the
		// world's slots, and at a million entities a doubling leaves up
		// to 4 MB of it unused.
		s.index = growTo(s.index, max(int(e.index)+1, len(s.index)+len(s.index)/4, 64))
	}
	s.shape++
	s.dense = append(s.dense, v)
	s.ents = append(s.ents, e)
	s.changed = append(s.changed, tick)
	s.added = append(s.added, tick)
	s.index[e.index] = uint32(len(s.dense))
	return true
}

func (s *sparseSet[T]) addZero(e Entity, tick uint32) bool {
	var zero T
	return s.add(e, zero, tick)
}

func (s *sparseSet[T]) remove(e Entity) bool {
	p, ok := s.pos(e)
	if !ok {
		return false
	}
	s.shape++
	last := len(s.dense) - 1
	if p != last {
		s.dense[p] = s.dense[last]
		s.ents[p] = s.ents[last]
		s.changed[p] = s.changed[last]
		s.added[p] = s.added[last]
		s.index[s.ents[p].index] = uint32(p + 1)
	}
	var zero T
	s.dense[last] = zero
	s.dense = s.dense[:last]
	s.ents = s.ents[:last]
	s.changed = s.changed[:last]
	s.added = s.added[:last]
	s.index[e.index] = 0
	return true
}

func (s *sparseSet[T]) length() int { return len(s.dense) }

func (s *sparseSet[T]) entityAt(i int) Entity { return s.ents[i] }

func (s *sparseSet[T]) value(e Entity) (reflect.Value, bool) {
	p, ok := s.pos(e)
	if !ok {
		return reflect.Value{}, false
	}
	return reflect.ValueOf(&s.dense[p]).Elem(), true
}

func (s *sparseSet[T]) changedSince(e Entity, since uint32) bool {
	p, ok := s.pos(e)
	return ok && newer(s.changed[p], since)
}

func (s *sparseSet[T]) addedSince(e Entity, since uint32) bool {
	p, ok := s.pos(e)
	return ok && newer(s.added[p], since)
}

func (s *sparseSet[T]) markChanged(e Entity, tick uint32) {
	if p, ok := s.pos(e); ok {
		s.changed[p] = newest(s.changed[p], tick)
	}
}

func (s *sparseSet[T]) changedSinceCount(since uint32) int {
	n := 0
	for _, c := range s.changed {
		if newer(c, since) {
			n++
		}
	}
	return n
}

func (s *sparseSet[T]) ticks(e Entity) (changed, added uint32, ok bool) {
	p, ok := s.pos(e)
	if !ok {
		return 0, 0, false
	}
	return s.changed[p], s.added[p], true
}

func (s *sparseSet[T]) eachChanged(since, until uint32, fn func(e Entity, raw []byte) bool) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	for p, c := range s.changed {
		if !newer(c, since) || until != 0 && newer(c, until) {
			continue
		}
		var raw []byte
		if size > 0 {
			raw = unsafe.Slice((*byte)(unsafe.Pointer(&s.dense[p])), size)
		}
		if !fn(s.ents[p], raw) {
			return
		}
	}
}
