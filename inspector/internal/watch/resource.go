package watch

import (
	"bytes"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// A resource watchpoint (resource NAME[.PATH]) fires when the value at
// PATH in a resource changes, naming the system whose run changed it: the
// value is compared after every system's run (SystemEnd), before the
// frame's systems (what the game's own code did between frames), after
// clients' edits and at the frame's end. Resources carry no change stamps,
// so the comparison is of the value itself: its memory when it holds no
// pointer, else its conversion; a value too big to compare that often is
// refused, with a hint to watch a part of it.

// Bounds of what a resource watchpoint compares after every system.
const (
	maxResourceBytes = 64 << 10 // memory compared, for a value without pointers
	maxResourceParts = 4096     // values converted, for one with pointers
)

// resWatch is a resource watchpoint's state: where it looks and what it
// saw last.
type resWatch struct {
	// root is the resource, found by name once a frame (fresh) and kept
	// between: a resource keeps its place until it is removed.
	root  reflect.Value
	steps []protocol.PathStep
	raw   []byte         // a value without pointers: its memory
	last  protocol.Value // else: its conversion
	plain bool
	gone  string // why the path named no value at the last look, "" if it did
}

// resourceAt is the value at the watchpoint's path in its resource, or
// why there is none; fresh looks the resource up by name again (once a
// frame: the list of resources is built and sorted for it).
func (s *Set) resourceAt(wp *watchpoint, fresh bool) (reflect.Value, string) {
	if fresh || !wp.res.root.IsValid() {
		wp.res.root = reflect.Value{}
		for _, r := range s.w.Inspect().Resources() {
			if r.Short == wp.spec.In || r.Name == wp.spec.In {
				wp.res.root = r.Value
			}
		}
	}
	if !wp.res.root.IsValid() {
		return reflect.Value{}, "no resource " + wp.spec.In
	}
	v, err := values.Walk(wp.res.root, wp.res.steps)
	if err != nil {
		return reflect.Value{}, err.Error()
	}
	if !v.IsValid() {
		return v, "nil"
	}
	return v, ""
}

// addResource sets up a resource watchpoint: the value must be there and
// small enough to compare after every system.
func (s *Set) addResource(wp *watchpoint) error {
	steps, err := protocol.ParsePath(wp.spec.Path)
	if err != nil {
		return answer.Refuse(protocol.ErrBadValue, "%v", err)
	}
	wp.res = &resWatch{steps: steps}
	v, why := s.resourceAt(wp, true)
	if why != "" {
		return answer.Refuse(protocol.ErrNotFound, "resource %s: %s", wp.spec.In, why)
	}
	wp.res.plain = values.PointerFree(v.Type()) && v.CanAddr()
	switch {
	case wp.res.plain && v.Type().Size() > maxResourceBytes:
		return answer.Refuse(protocol.ErrTooLarge, "resource %s: %s is %s, over the %s a watchpoint compares after every system: watch a part of it (resource %s.Cells[12])",
			wp.spec.In, shownPath(wp), protocol.ByteSize(int64(v.Type().Size())), protocol.ByteSize(maxResourceBytes), wp.spec.In)
	case !wp.res.plain:
		if _, ok := values.Fits(v, 1<<30, maxResourceParts); !ok {
			return answer.Refuse(protocol.ErrTooLarge, "resource %s: %s holds over %d values, more than a watchpoint compares after every system: watch a part of it", wp.spec.In, shownPath(wp), maxResourceParts)
		}
	}
	s.changedResource(wp, v, "")
	return nil
}

// shownPath is where a resource watchpoint looks, as a user writes it.
func shownPath(wp *watchpoint) string {
	if wp.spec.Path == "" {
		return wp.spec.In
	}
	return wp.spec.In + "." + wp.spec.Path
}

// changedResource compares the value v (or why there is none) with what
// the watchpoint saw last, keeps it, and reports whether it changed, with
// the value before in words.
func (s *Set) changedResource(wp *watchpoint, v reflect.Value, why string) (changed bool, before protocol.Value) {
	r := wp.res
	before = r.last
	if why != "" || !v.IsValid() {
		changed = r.gone == "" && (r.raw != nil || r.last.Kind() != protocol.KindNil)
		r.gone, r.raw, r.last = why, nil, protocol.Value{}
		return changed, before
	}
	wasGone := r.gone != ""
	r.gone = ""
	if r.plain && v.CanAddr() && v.Type().Size() <= maxResourceBytes {
		mem := unsafe.Slice((*byte)(v.Addr().UnsafePointer()), v.Type().Size())
		changed = r.raw != nil && !bytes.Equal(mem, r.raw) || wasGone
		if changed || r.raw == nil {
			r.raw = append(r.raw[:0], mem...)
			before, r.last = r.last, values.Of(v)
		}
		return changed, before
	}
	now := values.Convert(v, -1, maxResourceParts)
	changed = !now.Equal(r.last) && (r.last.Kind() != protocol.KindNil || wasGone)
	r.last = now
	return changed, before
}

// checkResource looks at a resource watchpoint's value after a run of by
// ("" for the game's own code or a client), and makes a hit if it
// changed; fresh finds the resource by name again (see resourceAt).
func (s *Set) checkResource(wp *watchpoint, by string, fresh bool) *protocol.WatchHit {
	v, why := s.resourceAt(wp, fresh)
	changed, before := s.changedResource(wp, v, why)
	if !changed {
		return nil
	}
	hit := &protocol.WatchHit{By: by, Component: wp.spec.In}
	now := wp.res.last
	if before.Kind() != protocol.KindNil {
		hit.Old = &before
	}
	if now.Kind() != protocol.KindNil {
		hit.Value = &now
	}
	who := "outside the schedule (the game's own code, or a client)"
	if by != "" {
		who = "by " + by
	}
	if why != "" {
		hit.Text = fmt.Sprintf("%s is gone (%s), %s", shownPath(wp), why, who)
	} else {
		hit.Text = fmt.Sprintf("%s changed %s: %s -> %s", shownPath(wp), who, shortValue(before), shortValue(now))
	}
	return hit
}

// shortValue is a value in words, cut to a line.
func shortValue(v protocol.Value) string {
	if v.Kind() == protocol.KindNil {
		return "none"
	}
	t := v.String()
	if len(t) > 80 {
		t = t[:77] + "..."
	}
	return t
}
