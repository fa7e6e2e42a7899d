package ecs

import (
	"iter"
	"reflect"
	"sort"
)

// Events is a typed, double-buffered event queue. An event sent during frame
// N can be read during frame N and frame N+1, whatever order systems run in,
// and is gone after that: [World.Tick] swaps the buffers. Get the queue for a
// type with [EventsOf]; there is one per type per world.
//
//	died := ecs.EventsOf[Died](w)
//	died.Send(Died{Who: e})
//	for ev := range died.All() { ... }
type Events[T any] struct {
	name     string
	fields   []Field // the event type's schema, for the inspector
	previous []T     // sent last frame
	current  []T     // sent this frame
	total    uint64
	room     roomKeeper
}

// eventQueue is an Events seen without its type, for Tick and the inspector.
type eventQueue interface {
	swap()
	info(sample int) EventQueueInfo
	image() ImageEvents
	restore(ImageEvents)
}

// EventsOf returns w's event queue for T, creating it on first use.
func EventsOf[T any](w *World) *Events[T] {
	t := reflect.TypeFor[T]()
	if q, ok := w.eventsByType[t]; ok {
		return q.(*Events[T])
	}
	q := &Events[T]{name: shortName(t), fields: describeFields(t)}
	w.eventsByType[t] = q
	w.events = append(w.events, q)
	return q
}

// Send queues an event, readable this frame and the next.
func (q *Events[T]) Send(v T) {
	q.current = append(q.current, v)
	q.total++
}

// All yields the readable events, last frame's first, in the order sent:
// called every frame, it yields each event twice (the frame it was sent
// and the next). To read each once, use a [EventReader].
func (q *Events[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, v := range q.previous {
			if !yield(v) {
				return
			}
		}
		for _, v := range q.current {
			if !yield(v) {
				return
			}
		}
	}
}

// Slices returns the readable events without copying: last frame's and this
// frame's. They are valid until the next [World.Tick].
func (q *Events[T]) Slices() (previous, current []T) { return q.previous, q.current }

// Len is how many events can be read now.
func (q *Events[T]) Len() int { return len(q.previous) + len(q.current) }

func (q *Events[T]) swap() {
	var zero T
	for i := range q.previous {
		q.previous[i] = zero // let the GC have what old events held
	}
	q.previous, q.current = q.current, q.previous[:0]
	if keep := q.room.keep(len(q.previous), cap(q.current)); keep > 0 {
		q.current = make([]T, 0, keep) // a burst's room, long past (roomKeeper)
	}
}

func (q *Events[T]) image() ImageEvents {
	return ImageEvents{Previous: copyValue(reflect.ValueOf(q.previous)), Current: copyValue(reflect.ValueOf(q.current)), Total: q.total}
}

// restore puts the queue back as an image holds it (checked by the caller).
func (q *Events[T]) restore(ev ImageEvents) {
	set := func(dst []T, v reflect.Value) []T {
		clear(dst)
		if !v.IsValid() {
			return dst[:0]
		}
		return append(dst[:0], copyValue(v).Interface().([]T)...)
	}
	q.previous, q.current, q.total = set(q.previous, ev.Previous), set(q.current, ev.Current), ev.Total
}

// EventQueueInfo describes an event queue for the inspector.
type EventQueueInfo struct {
	Name     string
	Type     reflect.Type    // the event type
	Previous int             // events sent last frame, still readable
	Current  int             // events sent this frame
	Total    uint64          // events sent since the queue was made
	Recent   []reflect.Value // up to the sample size, newest last
	Fields   []Field         // the event type's fields, as for components
}

func (q *Events[T]) info(sample int) EventQueueInfo {
	in := EventQueueInfo{Name: q.name, Type: reflect.TypeFor[T](), Previous: len(q.previous), Current: len(q.current), Total: q.total, Fields: q.fields}
	all := append(append([]T(nil), q.previous...), q.current...)
	if len(all) > sample {
		all = all[len(all)-sample:]
	}
	for i := range all {
		in.Recent = append(in.Recent, reflect.ValueOf(&all[i]).Elem())
	}
	return in
}

// inspectEventQueues is [Inspection.EventQueues].
func (w *World) inspectEventQueues(sample int) []EventQueueInfo {
	out := make([]EventQueueInfo, 0, len(w.events))
	for _, q := range w.events {
		out = append(out, q.info(sample))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
