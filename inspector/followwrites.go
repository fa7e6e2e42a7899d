package inspector

import (
	"bytes"
	"sync"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Who changed a value, for the entities clients have open.
//
// The kernel's writer log names the last run that held a column mutably:
// a system that iterates Energy mutably and changes nothing is named as
// much as the one that changed it. For the entities clients follow (their
// entity subscriptions, at most maxFollowed), the agent looks at the
// components' bytes after every run that may have changed them: after
// each system, at the components it declared it writes; after each
// stage's commands; before the schedule; after clients' edits. A value
// whose bytes differ from the last look was changed since, and the only
// run since that could have is the writer log's last one: that run is its
// writer, "seen" (Provenance.Seen). Until a change is seen, a Detail gives
// the writer log's answer, unseen. The cost is a copy of the followed
// entities' components at each look, nothing for other entities, nothing
// in the kernel.

// maxFollowed bounds the entities whose writes the agent follows.
const maxFollowed = 64

// followed is the entities followed and their components as last seen.
type followed struct {
	mu   sync.Mutex // systems of a parallel stage end at once
	ents map[ecs.Entity]map[ecs.ComponentID]*seenValue
}

// seenValue is a component's bytes at the last look, and the writes seen
// to change it, newest last (at most maxSeenWrites): after a rewind, the
// writer is the newest at or before the tick restored.
type seenValue struct {
	raw    []byte
	writes []protocol.Provenance // the newest last is its writer; none until a change is seen
}

// maxSeenWrites bounds the writes kept per followed component: one a
// frame (the frame's last), 17 s at 60 frames a second; with maxFollowed
// entities of 8 components, 16 MiB at most.
const maxSeenWrites = 1024

// followDetails follows the entities of the clients' entity subscriptions,
// starting from their values now.
func (a *Agent) followDetails() {
	f := &a.follow
	want := map[ecs.Entity]bool{}
	for _, c := range a.live {
		for _, s := range c.subs {
			if s.req.What == protocol.SubEntity && len(want) < maxFollowed {
				want[values.Entity(s.req.Entity)] = true
			}
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for e := range f.ents {
		if !want[e] {
			delete(f.ents, e)
		}
	}
	if len(want) > 0 && f.ents == nil {
		f.ents = map[ecs.Entity]map[ecs.ComponentID]*seenValue{}
	}
	for e := range want {
		if _, ok := f.ents[e]; !ok {
			f.ents[e] = map[ecs.ComponentID]*seenValue{}
			a.lookAt(e, f.ents[e], nil)
		}
	}
}

// look compares the followed entities' components comps (nil: all) with
// the last look (see above).
func (a *Agent) look(comps []ecs.ComponentID) {
	f := &a.follow
	f.mu.Lock()
	defer f.mu.Unlock()
	for e, seen := range f.ents {
		a.lookAt(e, seen, comps)
	}
}

// lookAt looks at one followed entity. f.mu is held.
func (a *Agent) lookAt(e ecs.Entity, seen map[ecs.ComponentID]*seenValue, comps []ecs.ComponentID) {
	if !a.w.Alive(e) {
		return
	}
	if comps == nil {
		comps = a.w.Inspect().ComponentsOf(e)
	}
	for _, id := range comps {
		raw, ok := a.w.Inspect().Bytes(e, id)
		if !ok {
			delete(seen, id)
			continue
		}
		s, known := seen[id]
		switch {
		case !known: // followed from now, or added since: its writer is not seen yet
			seen[id] = &seenValue{raw: raw}
		case !bytes.Equal(s.raw, raw):
			s.raw = raw
			if wr, _, ok := a.w.Inspect().LastWrite(e, id); ok {
				if p := values.Provenance(wr); p != nil {
					p.Seen = true
					if n := len(s.writes); n > 0 && s.writes[n-1].Tick == p.Tick {
						s.writes[n-1] = *p // the frame's last write is its writer
					} else if s.writes = append(s.writes, *p); len(s.writes) > maxSeenWrites {
						s.writes = s.writes[1:]
					}
				}
			}
		}
	}
}

// rewound takes the followed entities back to tick: their values as
// restored, their writers the newest seen at or before it (none if the
// writes seen are all later).
func (a *Agent) rewound(tick uint64) {
	f := &a.follow
	f.mu.Lock()
	defer f.mu.Unlock()
	for e, seen := range f.ents {
		for id, s := range seen {
			raw, ok := a.w.Inspect().Bytes(e, id)
			if !ok {
				delete(seen, id)
				continue
			}
			for len(s.writes) > 0 && s.writes[len(s.writes)-1].Tick > tick {
				s.writes = s.writes[:len(s.writes)-1]
			}
			s.raw = raw
		}
	}
}

// seenWriter is the write seen to change e's component id, if any.
func (a *Agent) seenWriter(e ecs.Entity, id ecs.ComponentID) *protocol.Provenance {
	f := &a.follow
	f.mu.Lock()
	defer f.mu.Unlock()
	if s := f.ents[e][id]; s != nil && len(s.writes) > 0 {
		p := s.writes[len(s.writes)-1]
		return &p
	}
	return nil
}
