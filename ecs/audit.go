package ecs

import (
	"bytes"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// The stale-handle audit: every use of a handle that names no live entity
// (Map.Get, Read, Set, Add, Remove, Despawn, relations, SetField, a
// command that is skipped for it) is counted by who made it, with the
// newest uses kept. A game that keeps handles to dead entities (a target,
// a parent, a pack leader) finds out which system does. Checks (Alive,
// Has, CheckAlive) are not uses. Off until EnableStaleAudit; the agent
// turns it on.

// staleSamples is how many recent uses the audit keeps.
const staleSamples = 64

// StaleUse is one use of a dead handle.
type StaleUse struct {
	Handle Entity
	// Generation is the slot's generation at the time, so a handle can be
	// told from the entity now there.
	Generation uint32
	By         string // the system (in a parallel stage, the one on the goroutine that used it), command buffer, or ActAs actor; "outside the schedule"
	Frame      uint64
}

// StaleReport is the audit's state: how many uses, by whom, the newest.
type StaleReport struct {
	Total  uint64
	By     []StaleCount // most uses first
	Recent []StaleUse   // oldest first
}

// StaleCount is one user's count of stale uses.
type StaleCount struct {
	By    string
	Count uint64
}

type staleAudit struct {
	on atomic.Bool
	// goroutines: a stale use was made in a parallel stage, so its workers
	// note their goroutine from then on (stage.work), and the next uses
	// there name the one system that made them. Until then no worker asks
	// (a goroutine's number costs a stack trace, 2-16 us: at every stage of
	// a game ticking thousands of times a second, a large share of its
	// frame), and the first use names the systems running then.
	goroutines atomic.Bool
	mu         sync.Mutex
	total      uint64
	by         map[string]uint64
	recent     [staleSamples]StaleUse
	next       int
	n          int
}

// inspectEnableStaleAudit is [Inspection.EnableStaleAudit].
func (w *World) inspectEnableStaleAudit(on bool) { w.stale.on.Store(on) }

// inspectStaleUses is [Inspection.StaleUses].
func (w *World) inspectStaleUses() StaleReport {
	a := &w.stale
	a.mu.Lock()
	defer a.mu.Unlock()
	r := StaleReport{Total: a.total}
	for by, n := range a.by {
		r.By = append(r.By, StaleCount{By: by, Count: n})
	}
	sort.Slice(r.By, func(i, j int) bool {
		return r.By[i].Count > r.By[j].Count || r.By[i].Count == r.By[j].Count && r.By[i].By < r.By[j].By
	})
	for k := a.n; k > 0; k-- {
		r.Recent = append(r.Recent, a.recent[(a.next-k+staleSamples)%staleSamples])
	}
	return r
}

// noteIfDead notes a use of e if e names no live entity (a lookup that
// found nothing may have found an entity without the component).
func (w *World) noteIfDead(e Entity) {
	if w.stale.on.Load() && !w.Alive(e) {
		w.noteStale(e)
	}
}

// noteStale notes a use of the dead handle e. A handle the world never
// issued (the zero handle, a slot or generation it never reached) is not
// a dead one: it is not counted (CheckAlive says what it is).
func (w *World) noteStale(e Entity) {
	a := &w.stale
	if !a.on.Load() || !w.issued(e) {
		return
	}
	use := StaleUse{Handle: e, By: w.staleUser(), Frame: w.changeFrame()}
	if int(e.index) < len(w.records) {
		use.Generation = w.records[e.index].gen
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.by == nil {
		a.by = map[string]uint64{}
	}
	a.total++
	a.by[use.By]++
	a.recent[a.next] = use
	a.next = (a.next + 1) % staleSamples
	a.n = min(a.n+1, staleSamples)
}

// staleUser names who is using a handle now: the actor of a command
// buffer or ActAs, else the system running on this goroutine (in a
// parallel stage, found by the goroutine each started on), else the
// systems running, else the game's own code.
func (w *World) staleUser() string {
	if w.actor != 0 {
		return w.actorName(w.actor)
	}
	l := &w.writers
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.nactive == 0 {
		return "outside the schedule"
	}
	if l.nactive > 1 { // a parallel stage: the one on this goroutine, once workers note theirs
		w.stale.goroutines.Store(true)
		if l.non > 0 {
			g := goroutineID()
			for actor, on := range l.on {
				if on == g {
					return w.actorName(uint16(actor))
				}
			}
		}
	}
	var names []string
	for actor, n := range l.active {
		if n > 0 {
			names = append(names, w.actorName(uint16(actor)))
		}
	}
	sort.Strings(names)
	return strings.Join(names, " or ")
}

// goroutineID is the calling goroutine's number, read from its stack's
// header ("goroutine 42 [running]:"): Go gives no other way, and only the
// stale audit asks, once a stale use was made in a parallel stage (once
// for each worker of such a stage, and at each stale use there): a few
// microseconds each.
func goroutineID() uint64 {
	var buf [32]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
