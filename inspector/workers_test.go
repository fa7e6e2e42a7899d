package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestHeavyWorkWaitsForASlot: while every work slot is taken, a client's
// sorted query (a copy to sort) waits, and another client's summaries
// (small work) keep coming; once a slot is free the query is answered.
func TestHeavyWorkWaitsForASlot(t *testing.T) {
	g := bigGame(t, 20_000, Options{})
	for range cap(g.agent.work) {
		g.agent.work <- struct{}{}
	}
	held := true
	release := func() {
		if held {
			for range cap(g.agent.work) {
				<-g.agent.work
			}
			held = false
		}
	}
	defer release()
	greedy, other := dial(t, g, protocol.Hello{Client: "greedy"}), dial(t, g, protocol.Hello{Client: "other"})
	id := greedy.request(&protocol.Query{Expr: "Position Health", Sort: "-Health.HP", Limit: 5})
	other.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 60})
	for range 3 {
		other.summary()
	}
	_ = greedy.conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	for {
		m, err := greedy.conn.Receive()
		if err != nil {
			break // nothing more: the query waits
		}
		if p, ok := m.(*protocol.Page); ok && p.Sub == id {
			t.Fatal("a sorted query was answered with every work slot taken")
		}
	}
	release()
	p := greedy.await(func(m protocol.Message) bool { p, ok := m.(*protocol.Page); return ok && p.Sub == id }).(*protocol.Page)
	if len(p.Rows) != 5 || p.Total != 20_020 {
		t.Fatalf("the sorted page: %d rows of %d", len(p.Rows), p.Total)
	}
}

// TestWorkSlotsBoundTheWriters: however many writers have heavy work, at
// most workSlots do it at once; small work never waits for a slot.
func TestWorkSlotsBoundTheWriters(t *testing.T) {
	a := New(ecs.NewWorld(), Options{})
	slots := cap(a.work)
	if slots != workSlots() || slots < 1 {
		t.Fatalf("%d slots, want %d", slots, workSlots())
	}
	running, most := make(chan int, 64), 0
	done := make(chan struct{})
	now := 0
	for range 4 * slots {
		go a.working(true, 0, func() {
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
	for range slots {
		a.work <- struct{}{}
	}
	ran := make(chan struct{})
	go a.working(false, lightWork, func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("small work waited for a slot")
	}
}
