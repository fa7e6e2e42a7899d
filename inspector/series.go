package inspector

import (
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Series subscriptions: one number sampled at the subscription's rate, for
// a chart. One entity's field is read on the game goroutine (a lookup); an
// aggregate runs as a query on a copy, its field read and folded on the
// client's writer goroutine.

// seriesQuery is a compiled series expression.
type seriesQuery struct {
	spec protocol.SeriesSpec
	one  ecs.Entity  // the entity, for one entity's field
	q    *live.Query // the matches (an aggregate's); sort names the field
}

// compileSeries compiles a series expression against the world.
func (a *Agent) compileSeries(expr string) (*seriesQuery, error) {
	spec, err := protocol.ParseSeries(expr)
	if err != nil {
		return nil, answer.Refuse(protocol.ErrBadValue, "%s", err.Error())
	}
	q, err := a.lw.Compile(spec.Over(), spec.Field, 0)
	if err != nil {
		return nil, err
	}
	sq := &seriesQuery{spec: spec, one: values.Entity(spec.Entity), q: q}
	if spec.Aggregate != "" {
		if err := a.lw.CheckCopy(q); err != nil {
			return nil, err
		}
	}
	return sq, nil
}

// seriesFrame samples a series subscription now.
func (a *Agent) seriesFrame(id uint32, s *subscription) answer.Frame {
	sq := s.series
	m := &protocol.Series{Sub: id, Tick: a.tick()}
	if sq.spec.Aggregate == "" {
		if x, ok := a.fieldNumber(sq.one, sq.q); ok {
			m.Value, m.N = &x, 1
		}
		return answer.Frame{Msg: m, Size: 64}
	}
	qc, err := a.lw.CopyQuery(id, sq.q, 0, 0)
	if err != nil {
		return answer.Frame{Msg: &protocol.Reply{ID: id, Code: codeOf(err), Message: err.Error()}, Size: 256}
	}
	return answer.Frame{Build: func() protocol.Message { return qc.Aggregate(m, sq.spec.Aggregate) }, Size: qc.Size(), Heavy: true}
}
