package recording

import (
	"fmt"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The dead a stream's frames carry (protocol.WorldBody.Dead). A state
// keeps the newest maxKeptDead of those it applied or passed, across
// keyframes, so a reader that went through the frame an entity died in
// opens it with its last state, as the agent kept it, even when no frame
// read holds it alive.

// maxKeptDead bounds the dead entities a state keeps.
const maxKeptDead = 4096

// deadKept is the dead entities a state learned of, newest last.
type deadKept struct {
	by    map[protocol.EntityID]*protocol.DeadEntity
	order []protocol.EntityID
}

// checkDead refuses a frame carrying more dead than a frame may.
func checkDead(body *protocol.WorldBody) error {
	if len(body.Dead) > protocol.MaxRecordedDead {
		return fmt.Errorf("%d dead entities in one frame, over %d", len(body.Dead), protocol.MaxRecordedDead)
	}
	return nil
}

// add keeps a frame's dead, letting the oldest go past maxKeptDead.
func (d *deadKept) add(list []protocol.DeadEntity) {
	if len(list) == 0 {
		return
	}
	if d.by == nil {
		d.by = map[protocol.EntityID]*protocol.DeadEntity{}
	}
	for i := range list {
		g := list[i]
		if _, known := d.by[g.Entity]; !known {
			d.order = append(d.order, g.Entity)
		}
		d.by[g.Entity] = &g
	}
	if over := len(d.order) - maxKeptDead; over > 0 {
		for _, e := range d.order[:over] {
			delete(d.by, e)
		}
		d.order = append(d.order[:0], d.order[over:]...)
	}
}

// DeadEntity is e's last state, if a frame read up to the state's tick
// carried it (its despawn at or before the tick).
func (s *WorldState) DeadEntity(e protocol.EntityID) (*protocol.DeadEntity, bool) {
	g, ok := s.dead.by[e]
	if !ok || g.Died.Tick > s.Tick {
		return nil, false
	}
	return g, true
}
