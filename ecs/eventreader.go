package ecs

import "iter"

// EventReader reads an event queue's events each once, however often its
// system runs: All yields the two frames' events every time it is called,
// so a system that counts them counts each event twice (once the frame it
// was sent, once the next). A reader keeps its place in the queue.
//
//	deaths := ecs.EventsOf[Died](w).Reader()
//	s.Add("census", func(*ecs.World, *ecs.Commands) {
//		for ev := range deaths.Read() { count++ } // each death once
//	})
type EventReader[T any] struct {
	q      *Events[T]
	next   uint64 // the number of the first event not yet read (events are numbered from 0 as sent)
	missed uint64
}

// Reader returns a reader of q that starts with the events readable now.
func (q *Events[T]) Reader() *EventReader[T] {
	return &EventReader[T]{q: q, next: q.total - uint64(len(q.previous)+len(q.current))}
}

// Read yields the events sent since the reader last read, in the order
// sent, and moves the reader past them. Events sent two frames ago or
// earlier that it never read are gone (Missed counts them).
func (r *EventReader[T]) Read() iter.Seq[T] {
	return func(yield func(T) bool) {
		q := r.q
		first := q.total - uint64(len(q.previous)+len(q.current)) // the oldest readable
		switch {
		case r.next < first:
			r.missed += first - r.next
			r.next = first
		case r.next > q.total: // the world was restored to an earlier frame: read what it holds
			r.next = first
		}
		for r.next < q.total {
			i := r.next - first
			var v T
			if i < uint64(len(q.previous)) {
				v = q.previous[i]
			} else {
				v = q.current[i-uint64(len(q.previous))]
			}
			r.next++
			if !yield(v) {
				return
			}
		}
	}
}

// Missed counts the events that were gone before the reader read them: its
// system did not run for two frames or more.
func (r *EventReader[T]) Missed() uint64 { return r.missed }
