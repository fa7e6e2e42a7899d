package server

import (
	"testing"
	"time"
)

// TestWorkSlotsBoundTheWriters: however many writers have heavy work, at
// most workSlots do it at once; small work never waits for a slot.
func TestWorkSlotsBoundTheWriters(t *testing.T) {
	a := testServer()
	slots := cap(a.work)
	writer := func() *Client { return newClient(a, 0, nil, "test", false) }
	if slots != workSlots() || slots < 1 {
		t.Fatalf("%d slots, want %d", slots, workSlots())
	}
	running, most := make(chan int, 64), 0
	done := make(chan struct{})
	now := 0
	for range 4 * slots {
		go writer().working(true, 0, func() {
			running <- +1
			time.Sleep(5 * time.Millisecond)
			running <- -1
			done <- struct{}{}
		})
	}
	for finished := 0; finished < 4*slots; {
		select {
		case d := <-running:
			now += d
			most = max(most, now)
		case <-done:
			finished++
		}
	}
	if most != slots {
		t.Fatalf("%d writers worked at once, want %d", most, slots)
	}
	takeSlots(a, slots)
	ran := make(chan struct{})
	go writer().working(false, lightWork, func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("small work waited for a slot")
	}
}

// TestBusyClientsTakeSlotsForSmallWork: a client that has done much work
// lately takes a slot even for small work; once its work has decayed it
// no longer does.
func TestBusyClientsTakeSlotsForSmallWork(t *testing.T) {
	a := testServer()
	w := newClient(a, 0, nil, "busy", false)
	takeSlots(a, cap(a.work))
	w.recentWork, w.workAt = float64(2*busyWork), time.Now()
	ran := make(chan struct{})
	go w.working(false, 10, func() { close(ran) })
	select {
	case <-ran:
		t.Fatal("a busy client's small work ran with every slot taken")
	case <-time.After(200 * time.Millisecond):
	}
	<-a.work // a slot frees: it runs
	<-ran
	quiet := newClient(a, 1, nil, "quiet", false)
	quiet.recentWork, quiet.workAt = float64(2*busyWork), time.Now().Add(-10*workMemory)
	done := make(chan struct{})
	go quiet.working(false, 10, func() { close(done) })
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("work done long ago still counted")
	}
}

// TestDroppedClientsStopWorking: a writer waiting for a slot, or pausing
// after busy work, gives up as soon as its client is dropped (closing the
// agent drops every client: it must not first do their queued work).
func TestDroppedClientsStopWorking(t *testing.T) {
	a := testServer()
	takeSlots(a, cap(a.work))
	waiting := newClient(a, 0, nil, "waiting", false)
	gave := make(chan bool)
	go func() { gave <- waiting.working(true, 0, func() { t.Error("ran without a slot") }) }()
	time.Sleep(50 * time.Millisecond)
	close(waiting.done)
	select {
	case worked := <-gave:
		if worked {
			t.Error("a dropped client's writer says it worked")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a dropped client's writer still waits for a slot")
	}
	for range cap(a.work) {
		<-a.work
	}
	takeSlots(a, cap(a.work)-1) // one slot free: the busy client's
	busy := newClient(a, 1, nil, "busy", false)
	busy.recentWork, busy.workAt = float64(2*busyWork), time.Now()
	go func() {
		gave <- busy.working(false, 10, func() { time.Sleep(time.Second) }) // then a 3 s pause
	}()
	time.Sleep(100 * time.Millisecond)
	other := newClient(a, 2, nil, "other", false)
	otherDone := make(chan struct{})
	go other.working(true, 0, func() { close(otherDone) }) // waits behind the busy one
	time.Sleep(1100 * time.Millisecond)
	close(busy.done)
	select {
	case <-gave:
	case <-time.After(2500 * time.Millisecond): // the pause would end ~2.9 s after the drop
		t.Fatal("a dropped client's writer sat out its pause")
	}
	select {
	case <-otherDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the slot was not given back")
	}
}

// takeSlots holds n of the server's work slots, as n writers at work would.
func takeSlots(a *Server, n int) {
	for range n {
		a.work <- struct{}{}
	}
}
