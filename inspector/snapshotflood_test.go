package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestSnapshotFloodCostsOneCopyASecond: a client without edit rights asks
// for thirty snapshots of a 20,000-entity world at once. The game keeps
// its pace, and the agent copies the world at most once a second of the
// flood (the telemetry's count); a second later a request gets a fresh
// copy.
func TestSnapshotFloodCostsOneCopyASecond(t *testing.T) {
	g := bigGame(t, 20_000, Options{})
	c := dial(t, g, protocol.Hello{Client: "flood"})
	const n = 30
	ids := map[uint32]bool{}
	ticks := map[uint64]int{}
	before := c.summaryWhere(func(*protocol.Summary) bool { return true }).Agent.Snapshots
	start := time.Now()
	underAttack(t, g, func() {
		for range n {
			ids[c.request(&protocol.SnapshotRequest{})] = true
		}
		for range n {
			s := c.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Snapshot); return ok && ids[s.ID] }).(*protocol.Snapshot)
			delete(ids, s.ID)
			ticks[s.Tick]++
		}
	})
	took := time.Since(start)
	var first uint64
	for tick := range ticks {
		first = max(first, tick)
	}
	copies := c.summaryWhere(func(s *protocol.Summary) bool { return s.Tick > first }).Agent.Snapshots - before
	if limit := 1 + uint64(took/snapshotReuse); copies > limit || copies == 0 {
		t.Fatalf("%d snapshot requests over %v made %d copies of the world (ticks %v), want 1 to %d", n, took.Round(time.Millisecond), copies, ticks, limit)
	}
	if encodes := g.agent.tel.encodes.Load(); encodes != g.agent.tel.snapshots.Load() {
		t.Fatalf("%d copies of the world encoded %d times: once each, whoever asks", g.agent.tel.snapshots.Load(), encodes)
	}
	time.Sleep(snapshotReuse + 100*time.Millisecond)
	id := c.request(&protocol.SnapshotRequest{})
	s := c.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Snapshot); return ok && s.ID == id }).(*protocol.Snapshot)
	if s.Tick <= first {
		t.Fatalf("a request %v after the burst got tick %d, the burst's copy was of tick %d", snapshotReuse, s.Tick, first)
	}
}

// sharedSnapshotOf is the Snapshot a's shared copy answers request id
// with, decoded from the bytes a client gets.
func sharedSnapshotOf(t *testing.T, a *Agent, id uint32) *protocol.Snapshot {
	t.Helper()
	enc, ok := a.sharedSnapshot().answer(id).(*protocol.Encoded)
	if !ok {
		t.Fatalf("the shared copy answered %T", a.sharedSnapshot().answer(id))
	}
	m, err := protocol.Decode(enc.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := m.(*protocol.Snapshot)
	if !ok || s.ID != id {
		t.Fatalf("the bytes decode as %T (id %v), want the Snapshot answering %d", m, s, id)
	}
	return s
}
