package dangling

import (
	"errors"
	"sort"
	"strconv"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// DefaultBudget is the handles read at each Sync.
const DefaultBudget = 1 << 15

// MaxKept bounds the dangling handles the tracker holds; more are counted,
// not kept.
const MaxKept = 10_000

// maxRecent bounds the newly found handles kept for watchpoints.
const maxRecent = 64

// Tracker is the list of dangling handles, kept up to date a budget at a
// time. Use it on the game goroutine.
type Tracker struct {
	w      *ecs.World
	scan   *ecs.HandleScan
	budget int

	list     map[string]*entry // by where: holder, component or resource, path
	pass     uint64            // the pass under way, from 1
	passes   uint64            // passes completed
	read     int               // handles read in the pass under way
	lastRead int               // handles the last complete pass read
	over     int               // found past MaxKept in the last complete pass
	overNow  int
	seq      uint64        // counts handles found new
	recent   []entry       // the newest found new, newest last
	began    time.Time     // the pass under way began; zero between passes
	ended    time.Time     // the last complete pass ended
	took     time.Duration // the last complete pass took, start to end
	// Clock is the tracker\'s time: time.Now; a test\'s own.
	Clock func() time.Time
	// WrittenBy, when set, says who last wrote a holder's component (the
	// agent's one rule for a writer), for a found handle's Stored.
	WrittenBy func(holder ecs.Entity, id ecs.ComponentID) *protocol.Provenance
	// ResourceWrittenBy, when set, says who last changed the item of a
	// resource a handle is found at, for its Stored.
	ResourceWrittenBy func(resource string, path []ecs.HandleStep) *protocol.Provenance
}

// entry is one dangling handle, the pass that read it last, and the order
// it was found in.
type entry struct {
	protocol.Dangling
	seen uint64
	seq  uint64
}

// New returns a tracker that reads budget handles a Step.
func New(w *ecs.World, budget int) *Tracker {
	w.Inspect().EnableDeathNotes(true)
	return &Tracker{w: w, scan: w.Inspect().NewHandleScan(), budget: budget, list: map[string]*entry{}, pass: 1, Clock: time.Now}
}

// Step reads the next budget of handles; at the end of a pass the handles
// it did not read dangling again leave the list.
func (t *Tracker) Step() { t.StepUpTo(t.budget) }

// StepUpTo reads the next n handles (at most the tracker's budget) and
// reports how many it read; at the end of a pass the handles it did not
// read dangling again leave the list.
func (t *Tracker) StepUpTo(n int) int {
	if t.began.IsZero() {
		t.began = t.Clock()
	}
	read, done := t.scan.Step(min(n, t.budget), t.found)
	t.read += read
	if !done {
		return read
	}
	now := t.Clock()
	t.took, t.began, t.ended = now.Sub(t.began), time.Time{}, now
	for k, e := range t.list {
		if e.seen != t.pass {
			delete(t.list, k)
		}
	}
	t.passes++
	t.pass++
	t.lastRead, t.read = t.read, 0
	t.over, t.overNow = t.overNow, 0
	return read
}

// found notes a handle the scan read dangling.
func (t *Tracker) found(f ecs.FoundHandle) {
	d := t.describe(f)
	key := strconv.FormatUint(uint64(d.Holder), 10) + "|" + d.Path
	if e, ok := t.list[key]; ok && e.Handle == d.Handle {
		e.seen, e.Stored = t.pass, d.Stored // the last write, as of this pass
		return
	}
	if len(t.list) >= MaxKept {
		t.overNow++
		return
	}
	t.seq++
	e := &entry{Dangling: d, seen: t.pass, seq: t.seq}
	t.list[key] = e
	t.recent = append(t.recent, *e)
	if len(t.recent) > maxRecent {
		t.recent = t.recent[len(t.recent)-maxRecent:]
	}
}

// describe is a found handle on the wire: where, since when, by whom.
func (t *Tracker) describe(f ecs.FoundHandle) protocol.Dangling {
	d := protocol.Dangling{Handle: values.Handle(f.Handle), Resource: f.Resource}
	path := f.Resource
	if f.Resource == "" {
		d.Holder = values.Handle(f.Holder)
		d.Component = t.w.Inspect().Component(f.Component).Short
		path = d.Component
		if t.WrittenBy != nil {
			d.Stored = t.WrittenBy(f.Holder, f.Component)
		}
	} else if t.ResourceWrittenBy != nil {
		d.Stored = t.ResourceWrittenBy(f.Resource, f.Path)
	}
	for _, st := range f.Path {
		switch {
		case st.Name != "":
			path = protocol.ChildPath(path, st.Name, false)
		case st.Key.IsValid():
			path = protocol.ChildPath(path, values.KeyText(st.Key), true)
			d.Key = st.IsKey
		default:
			path = protocol.ChildPath(path, strconv.Itoa(st.Index), true)
		}
	}
	d.Path = path
	if frame, by, ok := t.w.Inspect().DeathOf(f.Handle); ok {
		d.Since, d.By = frame, by
	} else {
		d.Since = t.w.Frame()
	}
	var ee *ecs.EntityError
	if errors.As(t.w.CheckAlive(f.Handle), &ee) {
		d.Why = ee.Reason
	}
	return d
}

// Audit is the list for a Summary: the count, and the newest found first,
// at most protocol.MaxDanglingListed: past that, the newest half and the
// first found, with how many between are not listed.
func (t *Tracker) Audit() *protocol.DanglingAudit {
	es := make([]*entry, 0, len(t.list))
	for _, e := range t.list {
		es = append(es, e)
	}
	sort.Slice(es, func(i, j int) bool { return es[i].seq > es[j].seq })
	a := &protocol.DanglingAudit{N: len(t.list) + t.over}
	if len(es) > protocol.MaxDanglingListed { // the newest half and the first found
		half := protocol.MaxDanglingListed / 2
		a.Between = len(es) - protocol.MaxDanglingListed
		es = append(es[:half:half], es[len(es)-(protocol.MaxDanglingListed-half):]...)
	}
	for _, e := range es {
		a.List = append(a.List, e.Dangling)
	}
	return a
}

// Page is a window of every handle listed, the oldest found first,
// grouped by where they are (an entity's together, a resource's
// together), the groups in the order their first handle was found; with
// the handles listed in all and those found past MaxKept.
func (t *Tracker) Page(offset, limit int) (page []protocol.Dangling, total, over int) {
	first := map[string]uint64{} // each group's first handle
	group := func(e *entry) string {
		if e.Holder != 0 {
			return e.Holder.String()
		}
		return "resource " + e.Resource
	}
	es := make([]*entry, 0, len(t.list))
	for _, e := range t.list {
		es = append(es, e)
		if g := group(e); first[g] == 0 || e.seq < first[g] {
			first[g] = e.seq
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if fi, fj := first[group(es[i])], first[group(es[j])]; fi != fj {
			return fi < fj
		}
		return es[i].seq < es[j].seq
	})
	p := protocol.NewPager(offset, limit)
	lo, hi := p.Meet(len(es), 0)
	for _, e := range es[lo:max(lo, hi)] {
		page = append(page, e.Dangling)
	}
	return page, p.Total(), t.over
}

// Due reports whether the scan should read now: a pass is under way, or
// the last one ended at least every ago.
func (t *Tracker) Due(now time.Time, every time.Duration) bool {
	return !t.began.IsZero() || now.Sub(t.ended) >= every
}

// PassTook is how long the last complete pass took, from its first step
// to its last: how old the list may be.
func (t *Tracker) PassTook() time.Duration { return t.took }

// Passes is the passes completed, the handles the last one read, and the
// component values it read only in part.
func (t *Tracker) Passes() (passes uint64, read, cut int) { return t.passes, t.lastRead, t.scan.Cut() }

// FoundAfter is the handles found new after the one numbered seq (0: from
// the first), oldest first (the newest 64 at most), and the number of the
// newest: a watchpoint's place to look from next time.
func (t *Tracker) FoundAfter(seq uint64) ([]protocol.Dangling, uint64) {
	var out []protocol.Dangling
	for _, e := range t.recent {
		if e.seq > seq {
			out = append(out, e.Dangling)
		}
	}
	return out, t.seq
}
