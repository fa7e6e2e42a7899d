package ecs

import (
	"testing"
	"unsafe"
)

// TestIterIsAHandle: an iterator is a small handle on state the query
// keeps, so "for it := q.Iter(); it.Next(); {}" (whose variable Go copies
// each iteration) copies a pointer, not the state; runs of one query
// nested in each other each get their own state; a handle of a run that
// ended does not touch the run that reuses its state.
func TestIterIsAHandle(t *testing.T) {
	if size := unsafe.Sizeof(Iter2[Position, Velocity]{}); size > 16 {
		t.Fatalf("an Iter2 is %d bytes: the loop copies it every iteration", size)
	}
	w := NewWorld()
	m := NewMap2[Position, Velocity](w)
	for i := range 10 {
		m.Spawn(Position{X: float64(i)}, Velocity{})
	}
	q := NewQuery2[Position, Velocity](w)
	pairs := 0
	for it := q.Iter(); it.Next(); {
		for in := q.Iter(); in.Next(); {
			pairs++
		}
	}
	if pairs != 100 {
		t.Fatalf("nested runs of one query saw %d pairs, want 100", pairs)
	}
	ended := q.Iter()
	for ended.Next() {
	}
	run := q.Iter() // takes the state back
	if !run.Next() {
		t.Fatal("a new run found nothing")
	}
	ended.Close() // a stale handle: must not end the run that reuses the state
	seen := 1
	for run.Next() {
		seen++
	}
	if seen != 10 {
		t.Fatalf("closing a stale handle cut the next run to %d rows", seen)
	}
	e := w.Spawn() // every run ended: the world takes structural changes
	if !w.Alive(e) {
		t.Fatal("spawn after the runs")
	}
}
