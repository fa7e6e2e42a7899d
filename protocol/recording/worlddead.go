package recording

import (
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
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

// DeadMatching is the dead whose last state passes expr, among those
// despawned after tick since and up to the state's tick, oldest first (at
// most limit, 0 for all), and how many in all: a value a system wrote
// and a despawn took away in the same frame shows only there.
func (s *WorldState) DeadMatching(expr string, since uint64, limit int) ([]protocol.EntityID, int, error) {
	plan, err := s.plan(expr, "")
	if err != nil {
		return nil, 0, err
	}
	var rows query.ValueRows
	for _, e := range s.dead.order {
		if g := s.dead.by[e]; g.Died.Tick > since && g.Died.Tick <= s.Tick {
			row := query.ValueRow{Entity: g.Entity, Parent: g.Parent, Components: map[uint16]protocol.Value{}}
			for _, cv := range g.Components {
				if id, _ := s.componentNamed(cv.Component); id >= 0 {
					row.Components[uint16(id)] = cv.Value
				}
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil, 0, nil
	}
	hits, total := plan.Page(rows, 0, limit)
	out := make([]protocol.EntityID, len(hits))
	for i, h := range hits {
		out[i] = h.Entity()
	}
	return out, total, nil
}
