package recording

import (
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// Sample evaluates a series expression (see ParseSeries) on the state:
// what a series subscription would have sent at this tick. value is nil
// when there is no sample (the entity is not alive or lacks the field;
// nothing matches for min, mean, max); n counts the entities it is over.
func (s *WorldState) Sample(spec protocol.SeriesSpec) (value *float64, n int, err error) {
	comps := s.Components()
	var key *query.SortKey
	if spec.Field != "" {
		if key, err = query.CompileSort(spec.Field, comps); err != nil {
			return nil, 0, err
		}
	}
	number := func(e protocol.EntityID) (float64, bool) {
		v, ok := s.ComponentValue(e, key.Field.Component)
		if !ok {
			return 0, false
		}
		if v, ok = key.Of(v); !ok {
			return 0, false
		}
		return v.Number()
	}
	if spec.Aggregate == "" {
		if x, ok := number(spec.Entity); ok {
			return &x, 1, nil
		}
		return nil, 0, nil
	}
	q, err := query.CompileQuery(spec.Over(), comps)
	if err != nil {
		return nil, 0, err
	}
	fold := protocol.NewFold(spec.Aggregate)
	s.eachMatch(q, 0, func(e protocol.EntityID) {
		if key == nil {
			fold.Count()
		} else if x, ok := number(e); ok {
			fold.Add(x)
		}
	})
	return fold.Value(), fold.N, nil
}
