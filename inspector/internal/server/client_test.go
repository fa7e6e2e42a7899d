package server

import (
	"bytes"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestASlowClientGetsTheNewestFrame: frames of one subscription queued
// before the writer takes them are replaced, newest wins; the replaced
// ones are counted as coalesced; another subscription's frame is kept.
func TestASlowClientGetsTheNewestFrame(t *testing.T) {
	a := testServer()
	agentSide, clientSide := net.Pipe()
	c := newClient(a, 1, protocol.NewConn(agentSide), "slow", false)
	t.Cleanup(func() { c.Drop(protocol.ErrTimeout, "test over"); _ = clientSide.Close() })
	for tick := uint64(1); tick <= 3; tick++ {
		c.Frame(1, answer.Frame{Msg: &protocol.Summary{Sub: 1, Tick: tick, Full: true}, Size: 64})
	}
	c.Frame(2, answer.Frame{Msg: &protocol.Summary{Sub: 2, Tick: 9, Full: true}, Size: 64})
	if got := a.Counts().Coalesced; got != 2 {
		t.Fatalf("coalesced %d frames, want 2 (ticks 1 and 2 of subscription 1)", got)
	}
	go c.writeLoop()
	conn := protocol.NewConn(clientSide)
	got := map[uint32]uint64{}
	for range 2 {
		m, err := conn.Receive()
		if err != nil {
			t.Fatal(err)
		}
		s, ok := m.(*protocol.Summary)
		if !ok {
			t.Fatalf("received %T", m)
		}
		got[s.Sub] = s.Tick
	}
	if got[1] != 3 || got[2] != 9 {
		t.Fatalf("the slow client got %v, want subscription 1 at tick 3 (the newest), 2 at tick 9", got)
	}
}

// TestDeltasRebuildEveryFrame: a subscription's frames go out as deltas
// against the last full frame sent; a client applying them gets each
// frame exactly, whatever changed (values, rows in and out).
func TestDeltasRebuildEveryFrame(t *testing.T) {
	a := testServer()
	agentSide, clientSide := net.Pipe()
	c := newClient(a, 1, protocol.NewConn(agentSide), "deltas", false)
	t.Cleanup(func() { c.Drop(protocol.ErrTimeout, "test over"); _ = clientSide.Close() })
	go c.writeLoop()
	conn := protocol.NewConn(clientSide)
	rng := rand.New(rand.NewPCG(3, 4))
	var have *protocol.Page
	deltas := 0
	for tick := uint64(1); tick <= 60; tick++ {
		want := &protocol.Page{Sub: 1, Tick: tick, Full: true, Columns: []uint16{1}}
		for e := range uint32(6) {
			if rng.IntN(4) > 0 { // rows come and go
				want.Rows = append(want.Rows, protocol.Row{Entity: protocol.MakeEntityID(e, 1), Values: []protocol.Value{protocol.IntValue(int64(rng.IntN(3)))}})
			}
		}
		want.Total = len(want.Rows)
		c.Frame(1, answer.Frame{Msg: want, Size: 64})
		m, err := conn.Receive()
		if err != nil {
			t.Fatal(err)
		}
		p := m.(*protocol.Page)
		if !p.Full {
			deltas++
		}
		if have, err = protocol.ApplyPage(have, p); err != nil {
			t.Fatal(err)
		}
		gotB, _ := protocol.Encode(have)
		wantB, _ := protocol.Encode(want)
		if !bytes.Equal(gotB, wantB) {
			t.Fatalf("tick %d rebuilt as %+v, want %+v", tick, have, want)
		}
	}
	if deltas < 50 {
		t.Fatalf("%d of 60 frames went as deltas", deltas)
	}
}

// testServer is a server with the agent's default bounds.
func testServer() *Server {
	return New(Config{MaxClients: 8, MaxHandshakes: 64, MaxFrame: 64 << 10, MaxQueuedBytes: 64 << 20,
		FrameTimeout: 5 * time.Second, HandshakeTimeout: 5 * time.Second, StuckTimeout: 10 * time.Second})
}
