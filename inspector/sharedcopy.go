package inspector

import (
	"reflect"
	"sync"
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
// Snapshot once, on the first writer goroutine that needs it.
type sharedCopy struct {
	at   time.Time
	once sync.Once
	make func() *protocol.Snapshot
	snap *protocol.Snapshot
}

func (s *sharedCopy) get() *protocol.Snapshot {
	s.once.Do(func() {
		s.snap = s.make()
		s.make = nil // the copies are garbage once converted
	})
	return s.snap
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
	a.snap = &sharedCopy{at: now, make: func() *protocol.Snapshot {
		s := live.BuildSnapshot(wc, tick, game, stats, schemas)
		for i, k := range kept {
			resources[i].Value = k.Value()
		}
		s.Resources = resources
		return s
	}}
	return a.snap
}
