package server

import (
	"maps"
	"sync"
	"sync/atomic"
)

// counters is what the server counts of its clients, for the agent's
// telemetry.
type counters struct {
	bytesSent, framesSent, coalesced, dropped, tooLarge atomic.Uint64
	evicted                                             atomic.Uint64 // silent connections closed to give their handshake slot to another
	clients                                             atomic.Int64

	mu        sync.Mutex
	droppedBy map[string]uint64
}

// Counts is a copy of the server's counters.
type Counts struct {
	Clients                                             int
	BytesSent, FramesSent, Coalesced, Dropped, TooLarge uint64
	// Evicted counts silent connections closed to give their handshake
	// slot to another.
	Evicted   uint64
	DroppedBy map[string]uint64 // clients dropped, by the code they were sent
}

// Counts copies the counters.
func (s *Server) Counts() Counts {
	t := &s.tel
	t.mu.Lock()
	by := maps.Clone(t.droppedBy)
	t.mu.Unlock()
	return Counts{Clients: int(t.clients.Load()), BytesSent: t.bytesSent.Load(), FramesSent: t.framesSent.Load(),
		Coalesced: t.coalesced.Load(), Dropped: t.dropped.Load(), TooLarge: t.tooLarge.Load(), Evicted: t.evicted.Load(), DroppedBy: by}
}

// CountCoalesced counts a frame the game half left out because the
// client's previous one was still unsent.
func (s *Server) CountCoalesced() { s.tel.coalesced.Add(1) }

// countDrop counts a client the server dropped, by the code it was sent.
func (t *counters) countDrop(code string) {
	if code == codeGone {
		return
	}
	t.dropped.Add(1)
	t.mu.Lock()
	if t.droppedBy == nil {
		t.droppedBy = map[string]uint64{}
	}
	t.droppedBy[code]++
	t.mu.Unlock()
}
