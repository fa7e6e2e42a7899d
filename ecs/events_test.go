package ecs

import (
	"slices"
	"testing"
)

type Died struct{ Who Entity }

func TestEventLifetime(t *testing.T) {
	w := NewWorld()
	q := EventsOf[Died](w)
	if EventsOf[Died](w) != q {
		t.Fatal("two queues for one type")
	}
	read := func() []uint32 {
		var out []uint32
		for ev := range q.All() {
			out = append(out, ev.Who.Index())
		}
		return out
	}
	q.Send(Died{EntityOf(1, 1)})
	if got := read(); !slices.Equal(got, []uint32{1}) {
		t.Errorf("frame 0 reads %v", got)
	}
	must(t, w.Tick())
	q.Send(Died{EntityOf(2, 1)})
	if got := read(); !slices.Equal(got, []uint32{1, 2}) {
		t.Errorf("frame 1 reads %v, want the previous frame's too", got)
	}
	must(t, w.Tick())
	if got := read(); !slices.Equal(got, []uint32{2}) {
		t.Errorf("frame 2 reads %v: event 1 should be gone", got)
	}
	must(t, w.Tick())
	if q.Len() != 0 {
		t.Errorf("frame 3 has %d events", q.Len())
	}
	infos := w.Inspect().EventQueues(4)
	if len(infos) != 1 || infos[0].Name != "Died" || infos[0].Total != 2 {
		t.Errorf("EventQueues = %+v", infos)
	}
}

func TestEventQueueSample(t *testing.T) {
	w := NewWorld()
	q := EventsOf[Died](w)
	for i := range 10 {
		q.Send(Died{EntityOf(uint32(i), 1)})
	}
	in := w.Inspect().EventQueues(3)[0]
	if in.Current != 10 || len(in.Recent) != 3 || in.Recent[2].Interface().(Died).Who.Index() != 9 {
		t.Errorf("info = %+v", in)
	}
	if len(in.Fields) != 1 || in.Fields[0].Name != "Who" || in.Fields[0].Kind != KindEntity {
		t.Errorf("the queue's schema = %+v, want Who, an entity", in.Fields)
	}
}

// TestEventReaderReadsEachOnce: a reader that runs every frame reads each
// event once, where All yields it twice; one that skips two frames counts
// what it missed; a reader made now starts with what is readable.
func TestEventReaderReadsEachOnce(t *testing.T) {
	w := NewWorld()
	q := EventsOf[int](w)
	q.Send(-1) // before the reader: readable when it is made
	r := q.Reader()
	var got, all []int
	for frame := range 5 {
		q.Send(frame * 10)
		for v := range r.Read() {
			got = append(got, v)
		}
		q.Send(frame*10 + 1) // after the reader ran this frame: read next frame
		for v := range q.All() {
			all = append(all, v)
		}
		must(t, w.Tick())
	}
	want := []int{-1, 0, 1, 10, 11, 20, 21, 30, 31, 40}
	if !slices.Equal(got, want) {
		t.Fatalf("the reader read %v, want %v", got, want)
	}
	if len(all) < 2*len(want)-4 {
		t.Errorf("All yielded %d events over the frames (each twice): %v", len(all), all)
	}
	lazy := q.Reader()
	for range 3 {
		q.Send(7)
		must(t, w.Tick())
	}
	n := 0
	for range lazy.Read() {
		n++
	}
	if n != 1 || lazy.Missed() != 4 { // 40, 41 and two 7s gone; the last 7 still readable
		t.Errorf("a reader idle for three frames read %d and missed %d, want 1 and 4", n, lazy.Missed())
	}
}
