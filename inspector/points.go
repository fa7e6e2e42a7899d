package inspector

import (
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Points subscriptions, for the spatial view: the entities a query
// selects, binned by two numeric fields into a density grid. The game
// goroutine copies the query's columns as a page subscription of the same
// query does (at memory speed, within the Sync's capture budget); the
// client's writer goroutine reads the two fields and bins them, so a
// frame's bytes are the grid's (at most MaxPointsCells counts), whatever
// the number of entities.

// pointsCopyRate bounds what a points subscription copies on the game
// goroutine, in bytes a second: 100,000 positions (about 1.6 MB a copy)
// come about twice a second, 10,000 at the rate asked.
const pointsCopyRate = 4 << 20

// pointsQuery is a compiled points subscription.
type pointsQuery struct {
	x, y  *live.Query // the matches, each sorting by one field (the field it reads)
	box   []float64   // nil: the points' bounds
	w, h  int
	marks []ecs.Entity
}

// compilePoints compiles a points subscription against the world.
func (a *Agent) compilePoints(m *protocol.Subscribe) (*pointsQuery, error) {
	spec, err := protocol.ParsePoints(m.Query)
	if err != nil {
		return nil, answer.Refuse(protocol.ErrBadValue, "%s", err.Error())
	}
	if len(m.Dots) != 2 || m.Dots[0] < 1 || m.Dots[1] < 1 || m.Dots[0] > protocol.MaxPointsCells || m.Dots[1] > protocol.MaxPointsCells ||
		m.Dots[0]*m.Dots[1] > protocol.MaxPointsCells {
		return nil, answer.Refuse(protocol.ErrBadValue, "a density grid is a width and a height in cells, %d in all at most", protocol.MaxPointsCells)
	}
	if m.Box != nil {
		if err := protocol.CheckBox(m.Box); err != nil {
			return nil, answer.Refuse(protocol.ErrBadValue, "%s", err.Error())
		}
	}
	if len(m.Marks) > protocol.MaxPointsMarks {
		return nil, answer.Refuse(protocol.ErrBadValue, "at most %d entities are marked", protocol.MaxPointsMarks)
	}
	pq := &pointsQuery{box: m.Box, w: m.Dots[0], h: m.Dots[1]}
	if pq.x, err = a.lw.Compile(spec.Over(), spec.X, 0); err != nil {
		return nil, err
	}
	if pq.y, err = a.lw.Compile(spec.Over(), spec.Y, 0); err != nil {
		return nil, err
	}
	if err := a.lw.CheckCopy(pq.x); err != nil {
		return nil, err
	}
	for _, e := range m.Marks {
		pq.marks = append(pq.marks, values.Entity(e))
	}
	return pq, nil
}

// pointsFrame copies a points subscription's matches now; the grid is
// made on the writer goroutine.
func (a *Agent) pointsFrame(id uint32, s *subscription) answer.Frame {
	pq := s.points
	m := &protocol.Points{Sub: id, Tick: a.tick()}
	for _, e := range pq.marks {
		x, okx := a.fieldNumber(e, pq.x)
		y, oky := a.fieldNumber(e, pq.y)
		if okx && oky {
			m.Marks = append(m.Marks, protocol.Mark{Entity: values.Handle(e), X: x, Y: y})
		}
	}
	qc, err := a.lw.CopyQuery(id, pq.x, 0, 0)
	if err != nil {
		return answer.Frame{Msg: &protocol.Reply{ID: id, Code: codeOf(err), Message: err.Error()}, Size: 256}
	}
	size := qc.Size() + int64(4*pq.w*pq.h)
	// A big world's grid comes less often than asked: its copies stay
	// within pointsCopyRate bytes a second.
	if d := time.Duration(float64(qc.Size()) / pointsCopyRate * float64(time.Second)); d > s.period {
		s.next = time.Now().Add(d)
	}
	return answer.Frame{Build: func() protocol.Message {
		g := protocol.Grid{Box: pq.box, W: pq.w, H: pq.h}
		qc.Points(pq.y.Plan, g.Add)
		g.Bin(m)
		return m
	}, Size: size, Heavy: true}
}

// fieldNumber is the number q sorts by (its field) on the live entity e.
func (a *Agent) fieldNumber(e ecs.Entity, q *live.Query) (float64, bool) {
	key := q.Plan.Sort()
	if key == nil {
		return 0, false
	}
	v, ok := a.w.Inspect().Value(e, q.SortBy)
	if !ok {
		return 0, false
	}
	f, ok := key.Of(values.Of(v))
	if !ok {
		return 0, false
	}
	return f.Number()
}
