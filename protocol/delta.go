package protocol

import (
	"errors"
	"reflect"
	"slices"
)

// Deltas. After a full frame, a subscription gets only what changed; these
// functions are how an agent makes a delta from two full frames and how a
// client applies one to the frame it holds. Both sides use them, so they
// agree by construction.

// DiffPage returns the delta from prev to next, two full frames of one
// subscription: rows whose values differ or that are new, in next's order,
// and the entities that left the window. Columns, total and offset are
// next's.
func DiffPage(prev, next *Page) *Page {
	d := &Page{Sub: next.Sub, Tick: next.Tick, Total: next.Total, Offset: next.Offset, Columns: next.Columns}
	if !equalIDs(prev.Columns, next.Columns) {
		full := *next
		full.Full = true
		return &full
	}
	old := make(map[EntityID]*Row, len(prev.Rows))
	for i := range prev.Rows {
		old[prev.Rows[i].Entity] = &prev.Rows[i]
	}
	for i := range next.Rows {
		r := &next.Rows[i]
		if o, ok := old[r.Entity]; !ok || !equalValues(o.Values, r.Values) {
			d.Rows = append(d.Rows, *r)
		}
		delete(old, r.Entity)
	}
	for i := range prev.Rows { // in prev's order, for a deterministic delta
		if _, gone := old[prev.Rows[i].Entity]; gone {
			d.Removed = append(d.Removed, prev.Rows[i].Entity)
		}
	}
	// The order the rule gives: prev's rows that stay, then the new ones.
	stays := make(map[EntityID]bool, len(next.Rows))
	for i := range next.Rows {
		stays[next.Rows[i].Entity] = true
	}
	ruled := make([]EntityID, 0, len(next.Rows))
	inPrev := make(map[EntityID]bool, len(prev.Rows))
	for i := range prev.Rows {
		inPrev[prev.Rows[i].Entity] = true
		if stays[prev.Rows[i].Entity] {
			ruled = append(ruled, prev.Rows[i].Entity)
		}
	}
	for i := range next.Rows {
		if !inPrev[next.Rows[i].Entity] {
			ruled = append(ruled, next.Rows[i].Entity)
		}
	}
	for i := range next.Rows {
		if ruled[i] != next.Rows[i].Entity {
			d.Order = make([]EntityID, len(next.Rows))
			for j := range next.Rows {
				d.Order[j] = next.Rows[j].Entity
			}
			break
		}
	}
	return d
}

// ApplyPage applies delta to base, a full page of the same subscription,
// and returns the new full page (base is not changed). Rows keep base's
// order; changed rows are replaced in place, new ones appended. A full
// delta replaces base.
func ApplyPage(base, delta *Page) (*Page, error) {
	if delta.Full {
		out := *delta
		return &out, nil
	}
	if base == nil {
		return nil, errors.New("protocol: a page delta needs a full page first")
	}
	if base.Sub != delta.Sub {
		return nil, errors.New("protocol: page delta for another subscription")
	}
	if !equalIDs(base.Columns, delta.Columns) { // the agent sends a full page when they change
		return nil, errors.New("protocol: a page delta with other columns than the page it applies to")
	}
	out := &Page{Sub: base.Sub, Tick: delta.Tick, Full: true, Total: delta.Total, Offset: delta.Offset, Columns: delta.Columns}
	gone := make(map[EntityID]bool, len(delta.Removed))
	for _, e := range delta.Removed {
		gone[e] = true
	}
	changed := make(map[EntityID]int, len(delta.Rows))
	for i := range delta.Rows {
		changed[delta.Rows[i].Entity] = i
	}
	out.Rows = make([]Row, 0, len(base.Rows)+len(delta.Rows))
	for _, r := range base.Rows {
		if gone[r.Entity] {
			continue
		}
		if i, ok := changed[r.Entity]; ok {
			r = delta.Rows[i]
			delete(changed, r.Entity)
		}
		out.Rows = append(out.Rows, r)
	}
	for _, r := range delta.Rows {
		if _, ok := changed[r.Entity]; ok {
			out.Rows = append(out.Rows, r)
		}
	}
	if delta.Order != nil {
		if len(delta.Order) != len(out.Rows) {
			return nil, errors.New("protocol: page delta order does not match its rows")
		}
		at := make(map[EntityID]int, len(out.Rows))
		for i := range out.Rows {
			at[out.Rows[i].Entity] = i
		}
		ordered := make([]Row, len(out.Rows))
		for i, e := range delta.Order {
			j, ok := at[e]
			if !ok {
				return nil, errors.New("protocol: page delta order names an entity not in the page")
			}
			ordered[i] = out.Rows[j]
			delete(at, e)
		}
		out.Rows = ordered
	}
	return out, nil
}

// DiffSummary returns the delta from prev to next, two full summaries:
// counters and timings always, archetypes whose counts changed or that are
// new, components that are new, and the other sections only if they changed.
func DiffSummary(prev, next *Summary) *Summary {
	d := *next
	d.Full = false
	d.Archetypes = nil
	old := make(map[uint32]Archetype, len(prev.Archetypes))
	for _, a := range prev.Archetypes {
		old[a.ID] = a
	}
	for _, a := range next.Archetypes {
		if o, ok := old[a.ID]; !ok || o.Len != a.Len || o.Cap != a.Cap || o.Bytes != a.Bytes {
			d.Archetypes = append(d.Archetypes, a)
		}
	}
	d.Components = nil
	known := make(map[uint16]bool, len(prev.Components))
	for _, c := range prev.Components {
		known[c.ID] = true
	}
	for _, c := range next.Components {
		if !known[c.ID] {
			d.Components = append(d.Components, c)
		}
	}
	// Sections are compared by value (Values by content, not by address):
	// an unchanged section is left out.
	if equalResources(prev.Resources, next.Resources) {
		d.Resources = nil
	}
	if reflect.DeepEqual(prev.Recycled, next.Recycled) {
		d.Recycled = nil
	}
	if equalEvents(prev.Events, next.Events) {
		d.Events = nil
	}
	if reflect.DeepEqual(prev.Systems, next.Systems) {
		d.Systems = nil
	} else if tails, ok := systemTails(prev.Systems, next.Systems); ok {
		d.Systems, d.SystemTails = nil, tails
	}
	if tail, ok := frameTail(prev.Frames, next.Frames); ok {
		d.Frames, d.FrameTail = nil, tail
	}
	if reflect.DeepEqual(prev.Stale, next.Stale) {
		d.Stale = nil
	}
	if reflect.DeepEqual(prev.Dangling, next.Dangling) {
		d.Dangling = nil
	}
	if reflect.DeepEqual(prev.Watches, next.Watches) {
		d.Watches = nil
	} else if d.Watches == nil {
		d.Watches = []Watchpoint{} // emptied: an empty list, not "unchanged"
	}
	return &d
}

func equalResources(a, b []Resource) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !a[i].Value.Equal(b[i].Value) || !reflect.DeepEqual(a[i].Fields, b[i].Fields) || !reflect.DeepEqual(a[i].Type, b[i].Type) {
			return false
		}
	}
	return true
}

func equalEvents(a, b []EventQueue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Name != y.Name || x.Previous != y.Previous || x.Current != y.Current || x.Total != y.Total ||
			!equalValues(x.Recent, y.Recent) || !reflect.DeepEqual(x.Fields, y.Fields) {
			return false
		}
	}
	return true
}

// ApplySummary applies a delta summary to base and returns the new full
// summary (base is not changed). A full summary replaces base.
func ApplySummary(base, delta *Summary) (*Summary, error) {
	if delta.Full {
		out := *delta
		return &out, nil
	}
	if base == nil {
		return nil, errors.New("protocol: a summary delta needs a full summary first")
	}
	out := *delta
	out.Full = true
	out.Archetypes = append([]Archetype(nil), base.Archetypes...)
	at := make(map[uint32]int, len(out.Archetypes))
	for i, a := range out.Archetypes {
		at[a.ID] = i
	}
	for _, a := range delta.Archetypes {
		if i, ok := at[a.ID]; ok {
			out.Archetypes[i] = a
		} else {
			out.Archetypes = append(out.Archetypes, a)
		}
	}
	out.Components = append(append([]Component(nil), base.Components...), delta.Components...)
	if delta.Resources == nil {
		out.Resources = base.Resources
	}
	if delta.Recycled == nil {
		out.Recycled = base.Recycled
	}
	if delta.Events == nil {
		out.Events = base.Events
	}
	switch {
	case delta.SystemTails != nil:
		systems, err := applySystemTails(base.Systems, delta.SystemTails)
		if err != nil {
			return nil, err
		}
		out.Systems, out.SystemTails = systems, nil
	case delta.Systems == nil:
		out.Systems = base.Systems
	}
	switch {
	case delta.FrameTail != nil:
		out.Frames, out.FrameTail = slide(base.Frames, delta.FrameTail), nil
	case delta.Frames == nil:
		out.Frames = base.Frames
	}
	if delta.Watches == nil {
		out.Watches = base.Watches
	}
	if delta.Stale == nil {
		out.Stale = base.Stale
	}
	if delta.Dangling == nil {
		out.Dangling = base.Dangling
	}
	return &out, nil
}

func equalIDs(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// equalValues compares two lists of values by content (Value.Equal).
func equalValues(a, b []Value) bool { return slices.EqualFunc(a, b, Value.Equal) }
