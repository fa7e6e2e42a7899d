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
	if spec.Aggregate == "" {
		key, err := query.CompileSort(spec.Field, s.Components())
		if err != nil {
			return nil, 0, err
		}
		if x, ok := s.fieldNumber(spec.Entity, key); ok {
			return &x, 1, nil
		}
		return nil, 0, nil
	}
	plan, err := s.plan(spec.Over(), spec.Field)
	if err != nil {
		return nil, 0, err
	}
	value, n = plan.Sample(s.world(0), spec.Aggregate)
	return value, n, nil
}
