package recording

import (
	"fmt"

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

// DeadMatching is the dead whose last state passes expr, among those
// despawned after tick since and up to the state's tick, oldest first (at
// most limit, 0 for all), and how many in all: a value a system wrote
// and a despawn took away in the same frame shows only there.
func (s *WorldState) DeadMatching(expr string, since uint64, limit int) ([]protocol.EntityID, int, error) {
	plan, err := s.plan(expr, "")
	if err != nil {
		return nil, 0, err
	}
	dw := deadWorld{s: s}
	for _, e := range s.dead.order {
		if g := s.dead.by[e]; g.Died.Tick > since && g.Died.Tick <= s.Tick {
			dw.rows = append(dw.rows, g)
		}
	}
	if len(dw.rows) == 0 {
		return nil, 0, nil
	}
	hits, total := plan.Page(dw, 0, limit)
	out := make([]protocol.EntityID, len(hits))
	for i, h := range hits {
		out[i] = h.Entity()
	}
	return out, total, nil
}

// deadWorld is dead entities' last states as one table a query plan
// runs over (query.World).
type deadWorld struct {
	s    *WorldState
	rows []*protocol.DeadEntity
}

func (d deadWorld) Tables() []query.Table { return []query.Table{d} }
func (d deadWorld) Filtered() bool        { return false }
func (d deadWorld) Len() int              { return len(d.rows) }

func (d deadWorld) Parent(e protocol.EntityID) protocol.EntityID {
	for _, g := range d.rows {
		if g.Entity == e {
			return g.Parent
		}
	}
	return 0
}

func (d deadWorld) Entity(row int) protocol.EntityID { return d.rows[row].Entity }

func (d deadWorld) Column(c uint16) query.Column {
	name := d.s.componentName(c)
	col := deadColumn{vals: make([]protocol.Value, len(d.rows)), has: make([]bool, len(d.rows))}
	for i, g := range d.rows {
		for _, cv := range g.Components {
			if cv.Component == name {
				col.vals[i], col.has[i] = cv.Value, true
			}
		}
	}
	return col
}

// deadColumn is one component over the dead's rows.
type deadColumn struct {
	vals []protocol.Value
	has  []bool
}

func (c deadColumn) Has(row int) bool             { return c.has[row] }
func (c deadColumn) Raw(int) []byte               { return nil }
func (c deadColumn) Value(row int) protocol.Value { return c.vals[row] }
func (c deadColumn) Changed(int) bool             { return false }
func (c deadColumn) Added(int) bool               { return false }
