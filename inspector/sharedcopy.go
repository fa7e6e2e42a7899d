package inspector

import (
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// snapshotReuse is how long a world copy answers snapshot requests: within
// it every request, from any client, gets the same copy (its tick says how
// old it is), so a flood of requests costs one copy a second.
const snapshotReuse = time.Second

// sharedCopy is one copy of the world on the game goroutine, turned into a
// Snapshot and encoded once, on the first writer goroutine that needs it:
// every request it answers gets the same bytes with its own id.
type sharedCopy struct {
	at      time.Time
	encodes *atomic.Uint64 // counts the encoding
	once    sync.Once
	make    func() *protocol.Snapshot
	enc     *protocol.Template
	err     error
}

// answer is the Snapshot answering request id.
func (s *sharedCopy) answer(id uint32) protocol.Message {
	s.once.Do(func() {
		snap := s.make()
		s.make = nil // the copies are garbage once converted
		snap.ID = protocol.TemplateID
		s.enc, s.err = protocol.EncodeTemplate(snap)
		s.encodes.Add(1)
	})
	if s.err != nil {
		return &protocol.Reply{ID: id, Code: protocol.ErrInternal, Message: "the agent could not encode the snapshot: " + s.err.Error()}
	}
	return s.enc.For(id)
}

// sharedSnapshot returns the newest copy if it is young enough, else copies
// the world now (on the game goroutine, at memory speed).
func (a *Agent) sharedSnapshot() *sharedCopy {
	now := time.Now()
	if a.snap != nil && now.Sub(a.snap.at) < snapshotReuse {
		return a.snap
	}
	wc := a.lw.CopyAll()
	a.tel.snapshots.Add(1)
	tick, game, stats := a.w.Frame(), a.opts.Game, a.w.Inspect().Stats()
	schemas := append([]protocol.Component(nil), a.componentSchemas()...)
	// Resources are copied here (they may share memory with the game),
	// within values.Keep's bound, and converted with the rest.
	var kept []values.Kept
	resources := a.summaryOf(func(v reflect.Value) protocol.Value {
		kept = append(kept, values.Keep(v))
		return protocol.Value{}
	}).Resources
	a.snap = &sharedCopy{at: now, encodes: &a.tel.encodes, make: func() *protocol.Snapshot {
		s := live.BuildSnapshot(wc, tick, game, stats, schemas)
		for i, k := range kept {
			resources[i].Value = k.Value()
		}
		s.Resources = resources
		return s
	}}
	return a.snap
}
