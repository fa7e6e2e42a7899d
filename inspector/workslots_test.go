package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestHeavyWorkWaitsForASlot: while every work slot is taken, a client's
// sorted query (a copy to sort) waits, and another client's summaries
// (small work) keep coming; once a slot is free the query is answered.
func TestHeavyWorkWaitsForASlot(t *testing.T) {
	g := bigGame(t, 20_000, Options{})
	release := g.agent.srv.HoldWork()
	defer release()
	greedy, other := dial(t, g, protocol.Hello{Client: "greedy"}), dial(t, g, protocol.Hello{Client: "other"})
	id := greedy.request(&protocol.Query{Expr: "Position Health", Sort: "-Health.HP", Limit: 5})
	// At 2 a second: a client's work is counted in wall time, decaying in
	// 100 ms, and at 60 (then 10) summaries a second under the race
	// detector on a loaded machine the summaries alone added up to a busy
	// client's, which waits for a slot. Half a second apart, one summary's
	// own work must pass the 5 ms alone. (The rule itself is tested to the
	// nanosecond in internal/server.)
	other.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 2})
	for range 2 {
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
