package recording

import (
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// Points bins the state's entities as a points subscription does (see
// ParsePoints): what the agent would have sent at this tick for a grid of
// w by h cells over box (nil: the points' bounds), with the marked
// entities' places.
func (s *WorldState) Points(spec protocol.PointsSpec, box []float64, w, h int, marks []protocol.EntityID) (*protocol.Points, error) {
	px, err := s.plan(spec.Over(), spec.X)
	if err != nil {
		return nil, err
	}
	py, err := s.plan(spec.Over(), spec.Y)
	if err != nil {
		return nil, err
	}
	m := &protocol.Points{Tick: s.Tick}
	g := protocol.Grid{Box: box, W: w, H: h}
	query.Points(s.world(0), px, py, g.Add)
	g.Bin(m)
	for _, e := range marks {
		x, okx := s.fieldNumber(e, px.Sort())
		y, oky := s.fieldNumber(e, py.Sort())
		if okx && oky {
			m.Marks = append(m.Marks, protocol.Mark{Entity: e, X: x, Y: y})
		}
	}
	return m, nil
}

// fieldNumber is key's field of entity e, as a number.
func (s *WorldState) fieldNumber(e protocol.EntityID, key *query.SortKey) (float64, bool) {
	v, ok := s.ComponentValue(e, key.Field.Component)
	if ok {
		v, ok = key.Of(v)
	}
	x, isNum := v.Number()
	return x, ok && isNum
}
