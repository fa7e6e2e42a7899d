package recording

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// resourceNumbers is what a stream's reader keeps of each resource, by
// its place in the summary's list, to read the next frame's change of it
// (protocol.ResourceChange): its numbers now and the ones before them
// (nil: not yet worked out from the summary's value; before, the same as
// now). The encoder keeps the same, by the same rule (step).
type resourceNumbers struct {
	now, before [][]byte
}

// numbersStep is what a frame did to one resource's numbers: the lanes
// vals written at rows, or, with whole, the resource came whole.
type numbersStep struct {
	at    int
	whole bool
	rows  []int32
	vals  []byte
}

// of is resource at's numbers now and before, working them out from res
// (the summary's list the numbers are kept for) when not yet.
func (r *resourceNumbers) of(at int, res []protocol.Resource) (now, before []byte) {
	if len(r.now) != len(res) {
		r.now, r.before = make([][]byte, len(res)), make([][]byte, len(res))
	}
	if r.now[at] == nil {
		r.now[at], r.before[at] = protocol.AppendNumbers(nil, res[at].Value), nil
	}
	return r.now[at], r.before[at]
}

// resourcesListed reports whether a frame carries every resource whole:
// a keyframe, or a delta whose summary lists them (the list changed).
func resourcesListed(full bool, body *protocol.WorldBody) bool {
	return full || body.Summary.Resources != nil
}

// step applies a frame: with listed (a keyframe, or a summary that
// carried the resources whole) every resource starts again; else each
// step's resource takes its numbers (in place), and the others keep
// theirs.
func (r *resourceNumbers) step(listed bool, steps []numbersStep) {
	if listed {
		r.now, r.before = nil, nil
		return
	}
	for _, st := range steps {
		switch {
		case st.at >= len(r.now):
		case st.whole:
			r.now[st.at], r.before[st.at] = nil, nil
		default:
			r.before[st.at] = protocol.StepNumbers(r.now[st.at], r.before[st.at], st.rows, st.vals)
		}
	}
}

// codeResources codes next (the capture's resources) against was (the
// summary before) as changes, each resource whole or its numbers that
// changed, and the steps they take the numbers kept; ok is false when
// the list changed (a resource added or gone): it goes whole.
func (r *resourceNumbers) codeResources(was, next []protocol.Resource) (changes []protocol.ResourceChange, steps []numbersStep, ok bool) {
	if len(was) != len(next) {
		return nil, nil, false
	}
	for i := range next {
		a, b := &was[i], &next[i]
		if a.Name != b.Name {
			return nil, nil, false
		}
		sameSchema := reflect.DeepEqual(a.Fields, b.Fields) && reflect.DeepEqual(a.Type, b.Type)
		if sameSchema && a.Value.Equal(b.Value) {
			continue
		}
		if !sameSchema || !protocol.SameShape(a.Value, b.Value) {
			changes = append(changes, protocol.ResourceChange{At: i, Whole: b})
			steps = append(steps, numbersStep{at: i, whole: true})
			continue
		}
		now, before := r.of(i, was)
		changed, vals, rows, raw := protocol.CodeNumbers(now, before, protocol.AppendNumbers(make([]byte, 0, len(now)), b.Value))
		if changed == nil {
			continue // a float's -0 and 0 are not Equal, nor is any NaN: the bits are
		}
		changes = append(changes, protocol.ResourceChange{At: i, Rows: rows, Raw: raw})
		steps = append(steps, numbersStep{at: i, rows: changed, vals: vals})
	}
	return changes, steps, true
}

// undoResources applies changes to res (the summary's resources after
// the frame's summary was applied, the ones the numbers are kept for):
// a new list, res unchanged, and the steps the numbers take.
func (r *resourceNumbers) undoResources(res []protocol.Resource, changes []protocol.ResourceChange, budget *protocol.AllocBudget) ([]protocol.Resource, []numbersStep, error) {
	out := append([]protocol.Resource(nil), res...)
	steps := make([]numbersStep, 0, len(changes))
	last := -1
	for _, c := range changes {
		if c.At <= last || c.At >= len(res) {
			return nil, nil, fmt.Errorf("a change of resource %d, of %d resources, after %d", c.At, len(res), last)
		}
		last = c.At
		if c.Whole != nil {
			if c.Rows != nil || c.Raw != nil {
				return nil, nil, fmt.Errorf("resource %d: whole and its numbers both", c.At)
			}
			out[c.At] = *c.Whole
			steps = append(steps, numbersStep{at: c.At, whole: true})
			continue
		}
		now, before := r.of(c.At, res)
		changed, vals, err := protocol.UndoNumbers(now, before, c.Rows, c.Raw, budget)
		if err == nil {
			err = budget.Take(len(now)/8, 24, "values")
		}
		if err == nil {
			out[c.At].Value, err = protocol.WithChanged(res[c.At].Value, changed, vals)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("resource %d (%s): %w", c.At, res[c.At].Name, err)
		}
		steps = append(steps, numbersStep{at: c.At, rows: changed, vals: vals})
	}
	return out, steps, nil
}

// errResourcesTwice is a frame that carries its resources whole and
// changes to them.
var errResourcesTwice = errors.New("resources whole and changed in one frame")
