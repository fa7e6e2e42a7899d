package fleet

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// Roster is the fleet as a client sees it: every instance heard from on
// the broker, live or gone. It listens to announcements and asks every
// instance at once (discover) when it starts and on Refresh. An instance
// that announces it is closing, or is silent for three of its periods, is
// kept as gone, with when, until MaxMembers makes room.
type Roster struct {
	nc      *nats.Conn
	prefix  string
	subs    []*nats.Subscription
	inbox   string
	changed chan struct{}

	mu      sync.Mutex
	members map[string]*Member

	// Bad counts messages on the fleet's subjects that are not a status;
	// Dropped, statuses of new instances past MaxMembers.
	Bad, Dropped atomic.Uint64
}

// Member is one instance in a Roster.
type Member struct {
	Status
	Seen   time.Time // when its last status came
	Gone   bool
	GoneAt time.Time
	Why    string // "closed", "silent"
}

// MaxMembers bounds a Roster: past it, the gone instance seen longest ago
// makes room, and a new instance is dropped (counted) if none is gone.
const MaxMembers = 10000

// silentPeriods is how many announcement periods without a word make an
// instance gone.
const silentPeriods = 3

// WatchRoster starts following the fleet under prefix on nc.
func WatchRoster(nc *nats.Conn, prefix string) (*Roster, error) {
	r := &Roster{nc: nc, prefix: prefix, members: map[string]*Member{}, changed: make(chan struct{}, 1), inbox: nc.NewRespInbox()}
	for _, subj := range []string{AnnounceSubject(prefix), r.inbox} {
		sub, err := nc.Subscribe(subj, r.take)
		if err != nil {
			r.Close()
			return nil, err
		}
		if err := sub.SetPendingLimits(65536, 64<<20); err != nil {
			r.Close()
			return nil, err
		}
		r.subs = append(r.subs, sub)
	}
	if err := r.Refresh(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Refresh asks every instance for its status now.
func (r *Roster) Refresh() error {
	return r.nc.PublishRequest(DiscoverSubject(r.prefix), r.inbox, nil)
}

// Changed is signalled when a member came, changed or went.
func (r *Roster) Changed() <-chan struct{} { return r.changed }

func (r *Roster) take(m *nats.Msg) {
	s, err := DecodeStatus(m.Data)
	if err != nil {
		r.Bad.Add(1)
		return
	}
	now := time.Now()
	r.mu.Lock()
	mem := r.members[s.Instance]
	if mem == nil {
		if len(r.members) >= MaxMembers && !r.evictLocked() {
			r.mu.Unlock()
			r.Dropped.Add(1)
			return
		}
		mem = &Member{}
		r.members[s.Instance] = mem
	}
	mem.Status, mem.Seen = s, now
	mem.Gone, mem.GoneAt, mem.Why = s.Gone, time.Time{}, ""
	if s.Gone {
		mem.GoneAt, mem.Why = now, "closed"
	}
	r.mu.Unlock()
	wake(r.changed)
}

// evictLocked drops the gone member seen longest ago.
func (r *Roster) evictLocked() bool {
	oldest := ""
	for k, m := range r.members {
		if m.Gone && (oldest == "" || m.Seen.Before(r.members[oldest].Seen)) {
			oldest = k
		}
	}
	if oldest == "" {
		return false
	}
	delete(r.members, oldest)
	return true
}

// Members is the roster now, by instance name; instances silent for
// three of their periods are marked gone.
func (r *Roster) Members() []Member {
	now := time.Now()
	r.mu.Lock()
	out := make([]Member, 0, len(r.members))
	for _, m := range r.members {
		every := time.Duration(m.Every * float64(time.Second))
		if every <= 0 {
			every = 2 * time.Second
		}
		if !m.Gone && now.Sub(m.Seen) > silentPeriods*every {
			m.Gone, m.GoneAt, m.Why = true, m.Seen.Add(silentPeriods*every), "silent"
		}
		out = append(out, *m)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b Member) int { return strings.Compare(a.Instance, b.Instance) })
	return out
}

// size is how many members the roster holds.
func (r *Roster) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.members)
}

// Close stops following the fleet.
func (r *Roster) Close() {
	for _, s := range r.subs {
		_ = s.Unsubscribe()
	}
}

// List asks the fleet under prefix for its instances and returns the live
// ones once no new instance answered for quiet (300 ms if 0), or at most
// wait (2 s if 0) after asking.
func List(nc *nats.Conn, prefix string, quiet, wait time.Duration) ([]Member, error) {
	if quiet <= 0 {
		quiet = 300 * time.Millisecond
	}
	if wait <= 0 {
		wait = 2 * time.Second
	}
	r, err := WatchRoster(nc, prefix)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	end := time.NewTimer(wait)
	defer end.Stop()
	var lull <-chan time.Time
	known := 0
	for {
		select {
		case <-r.Changed():
			if n := r.size(); n > known { // a new one: wait for more
				known, lull = n, time.After(quiet)
			}
			continue
		case <-lull:
		case <-end.C:
		}
		break
	}
	var live []Member
	for _, m := range r.Members() {
		if !m.Gone {
			live = append(live, m)
		}
	}
	return live, nil
}

// Match reports whether m passes a filter on its discovery fields: terms
// separated by commas, each key=value (the value a glob: demo-0*) or
// key>number / key<number for numbers; keys: instance, game, host, build,
// paused, pid, tick, tps, p99, entities, hits, clients. An empty filter
// passes everything.
func Match(m Member, filter string) (bool, error) {
	for _, term := range strings.Split(filter, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			continue
		}
		ok, err := matchTerm(m, term)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}
