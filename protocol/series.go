package protocol

import (
	"fmt"
	"math"
	"strings"
)

// Field history: a subscription that samples one number over time, for a
// chart. The number is a numeric field of one entity, or an aggregate of a
// field over the entities a query matches.

// SubSeries subscribes to a series: Subscribe's q is a series expression
// (see ParseSeries); the agent answers with Series messages, a sample at
// the subscription's rate, history starting when it subscribes.
const SubSeries = "series"

// TypeSeries tags a Series.
const TypeSeries Type = 75

// Series is one sample of a series subscription.
type Series struct {
	Sub  uint32 `msgpack:"sub"`
	Tick uint64 `msgpack:"t"`
	// Value is the sample; absent when there is none (the entity is not
	// alive or lacks the field; no entity matches for min, mean, max).
	Value *float64 `msgpack:"v,omitempty"`
	N     int      `msgpack:"n"` // the entities it is over: 1 for a field, the matches for an aggregate
}

// Type implements Message.
func (*Series) Type() Type { return TypeSeries }

// Aggregates a series takes over a query's matches.
var Aggregates = []string{"count", "min", "mean", "max", "sum"}

// SeriesSpec is a parsed series expression.
type SeriesSpec struct {
	Aggregate string   // "" for one entity's field; else one of Aggregates
	Entity    EntityID // the entity, for a field
	Field     string   // Component.Field; "" for count
	Query     string   // the entities an aggregate is over ("" for all that have the field)
}

// ParseSeries parses a series expression:
//
//	42v3 Energy.Value                 one entity's field
//	count Herbivore                   how many entities match a query
//	mean Energy.Value Herbivore       min, mean, max or sum of a field over a query's matches
func ParseSeries(expr string) (SeriesSpec, error) {
	words := strings.Fields(expr)
	if len(words) == 0 {
		return SeriesSpec{}, fmt.Errorf("an empty series: try 42v3 Energy.Value, count Herbivore or mean Energy.Value Herbivore")
	}
	field := func(s string) error {
		if c, f, ok := strings.Cut(s, "."); !ok || c == "" || f == "" {
			return fmt.Errorf("%q is not a Component.Field", s)
		}
		return nil
	}
	if e, err := ParseEntityID(words[0]); err == nil && e != 0 {
		if len(words) != 2 {
			return SeriesSpec{}, fmt.Errorf("an entity's series is one field: %s Energy.Value", words[0])
		}
		return SeriesSpec{Entity: e, Field: words[1]}, field(words[1])
	}
	switch words[0] {
	case "count":
		return SeriesSpec{Aggregate: "count", Query: strings.Join(words[1:], " ")}, nil
	case "min", "mean", "max", "sum":
		if len(words) < 2 {
			return SeriesSpec{}, fmt.Errorf("%s takes a field and, if you like, a query: %s Energy.Value Herbivore", words[0], words[0])
		}
		return SeriesSpec{Aggregate: words[0], Field: words[1], Query: strings.Join(words[2:], " ")}, field(words[1])
	}
	return SeriesSpec{}, fmt.Errorf("%q is neither an entity nor one of count, min, mean, max, sum", words[0])
}

// Over is the query an aggregate runs over: the spec's, and, for a field,
// the field's component (the entities that have the field); "" for one
// entity's field.
func (s SeriesSpec) Over() string {
	if s.Aggregate == "" {
		return ""
	}
	if comp, _, ok := strings.Cut(s.Field, "."); ok {
		return strings.Join(strings.Fields(s.Query+" "+comp), " ")
	}
	return s.Query
}

// String gives the expression back, in the form ParseSeries reads.
func (s SeriesSpec) String() string {
	if s.Aggregate == "" {
		return s.Entity.String() + " " + s.Field
	}
	return strings.Join(strings.Fields(s.Aggregate+" "+s.Field+" "+s.Query), " ")
}

// Fold accumulates an aggregate's sample, one match at a time: what the
// agent and a recording's reader both compute.
type Fold struct {
	Aggregate   string
	N           int // the matches counted, or those with the field
	lo, hi, sum float64
}

// NewFold starts an aggregate.
func NewFold(aggregate string) *Fold {
	return &Fold{Aggregate: aggregate, lo: math.Inf(1), hi: math.Inf(-1)}
}

// Count counts a match without a field (count).
func (f *Fold) Count() { f.N++ }

// Add folds in a match's field.
func (f *Fold) Add(x float64) {
	f.N++
	f.lo, f.hi, f.sum = min(f.lo, x), max(f.hi, x), f.sum+x
}

// Value is the sample: nil when there is none (nothing to take the min,
// mean or max of); a count or a sum over no matches is 0.
func (f *Fold) Value() *float64 {
	var x float64
	switch {
	case f.Aggregate == "count":
		x = float64(f.N)
	case f.Aggregate == "sum" && f.N == 0:
		x = 0
	case f.N == 0:
		return nil
	case f.Aggregate == "min":
		x = f.lo
	case f.Aggregate == "max":
		x = f.hi
	case f.Aggregate == "sum":
		x = f.sum
	default:
		x = f.sum / float64(f.N)
	}
	return &x
}
