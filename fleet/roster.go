package fleet

import (
	"crypto/ed25519"
	"fmt"
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
//
// Every announcement is signed. With the fleet's token, an instance's key
// is known from its name (InstanceKey) and an announcement signed with
// another is dropped as forged; without one, the first key heard under a
// name is pinned while that instance lives: another key under the same
// name is a conflict, shown on the member and never merged into it, and
// takes the name only once the pinned instance is gone. A "gone" counts
// only from the instance itself, and only for the run it announced.
type Roster struct {
	nc      *nats.Conn
	prefix  string
	expect  func(instance string) ed25519.PublicKey // nil: pin on first sight
	subs    []*nats.Subscription
	changed chan struct{}

	mu      sync.Mutex
	members map[string]*Member

	// Bad counts messages on the fleet's subjects that are not a signed
	// status; Forged, statuses signed with a key the token does not give
	// the name; Dropped, statuses of new instances past MaxMembers.
	Bad, Forged, Dropped atomic.Uint64
}

// Member is one instance in a Roster.
type Member struct {
	Status
	Key    ed25519.PublicKey // the key its announcements are signed with
	Seen   time.Time         // when its last status came
	Gone   bool
	GoneAt time.Time
	Why    string // "closed", "silent"
	// Conflict says another key announced this name while it lived (the
	// latest such, in words); Conflicts counts them.
	Conflict  string
	Conflicts int
	// Restarted: the name came back with another key after it was gone.
	Restarted bool
}

// MaxMembers bounds a Roster: past it, the gone instance seen longest ago
// makes room, and a new instance is dropped (counted) if none is gone.
const MaxMembers = 10000

// silentPeriods is how many announcement periods without a word make an
// instance gone.
const silentPeriods = 3

// WatchRoster starts following the fleet under prefix on nc; token is the
// fleet's ("" for none: keys are pinned on first sight).
func WatchRoster(nc *nats.Conn, prefix, token string) (*Roster, error) {
	r := &Roster{nc: nc, prefix: prefix, members: map[string]*Member{}, changed: make(chan struct{}, 1)}
	if token != "" {
		r.expect = func(instance string) ed25519.PublicKey {
			return InstanceKey(token, instance).Public().(ed25519.PublicKey)
		}
	}
	sub, err := nc.Subscribe(AnnouncementsSubject(prefix), r.take)
	if err != nil {
		return nil, err
	}
	r.subs = append(r.subs, sub)
	if err := sub.SetPendingLimits(65536, 64<<20); err != nil {
		r.Close()
		return nil, err
	}
	if err := nc.Flush(); err != nil { // subscribed before anyone is asked
		r.Close()
		return nil, err
	}
	if err := r.Refresh(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Refresh asks every instance to announce itself now.
func (r *Roster) Refresh() error {
	return r.nc.Publish(DiscoverSubject(r.prefix), nil)
}

// Changed is signalled when a member came, changed or went.
func (r *Roster) Changed() <-chan struct{} { return r.changed }

func (r *Roster) take(m *nats.Msg) {
	s, key, err := openStatus(m)
	if err != nil || m.Subject != AnnounceSubject(r.prefix, s.Instance) {
		r.Bad.Add(1) // unsigned, or announced on another name's subject
		return
	}
	if r.expect != nil {
		if want := r.expect(s.Instance); !key.Equal(want) {
			r.Forged.Add(1)
			return
		}
	}
	now := time.Now()
	r.mu.Lock()
	defer wake(r.changed)
	defer r.mu.Unlock()
	mem := r.members[s.Instance]
	switch {
	case mem == nil:
		if len(r.members) >= MaxMembers && !r.evictLocked() {
			r.Dropped.Add(1)
			return
		}
		mem = &Member{Key: key}
		r.members[s.Instance] = mem
	case !mem.Key.Equal(key) && !r.goneLocked(mem, now):
		// Another key under a live name: shown, never merged.
		mem.Conflicts++
		mem.Conflict = fmt.Sprintf("another key (%s) announced %s at %s (pid %d on %s)", Fingerprint(key), s.Instance, now.Format("15:04:05"), s.PID, s.Host)
		return
	case !mem.Key.Equal(key): // the name's last run is gone: a new one takes it
		*mem = Member{Key: key, Restarted: true}
	case s.Started < mem.Started || s.Gone && s.Started != mem.Started:
		return // an earlier run's word, replayed
	case s.Started == mem.Started && (s.At < mem.At || mem.Gone && mem.Why == "closed" && !s.Gone):
		return // within the run: an older word replayed, or a word after its goodbye
	}
	mem.Status, mem.Seen = s, now
	mem.Gone, mem.GoneAt, mem.Why = s.Gone, time.Time{}, ""
	if s.Gone {
		mem.GoneAt, mem.Why = now, "closed"
	}
}

// goneLocked reports whether mem is gone: it said so, or it has been
// silent for silentPeriods of its periods (then marked so).
func (r *Roster) goneLocked(mem *Member, now time.Time) bool {
	every := time.Duration(mem.Every * float64(time.Second))
	if every <= 0 {
		every = 2 * time.Second
	}
	if !mem.Gone && now.Sub(mem.Seen) > silentPeriods*every {
		mem.Gone, mem.GoneAt, mem.Why = true, mem.Seen.Add(silentPeriods*every), "silent"
	}
	return mem.Gone
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
// three of their periods are marked gone (not while the broker cannot be
// reached: then nothing is heard from anyone).
func (r *Roster) Members() []Member {
	now := time.Now()
	r.mu.Lock()
	out := make([]Member, 0, len(r.members))
	reachable := r.nc.IsConnected() // silence is no news while the broker cannot be reached
	for _, m := range r.members {
		if reachable {
			r.goneLocked(m, now)
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

// List asks the fleet under prefix (token: the fleet's, or "") for its
// instances and returns the live ones once no new instance answered for
// quiet, or at most wait (2 s if 0) after asking. quiet is never less
// than an instance may hold its answer back (it answers discovers at most
// once each announceGap), plus 150 ms for the answer to travel, so an
// instance that announced just before the ask is not missed.
func List(nc *nats.Conn, prefix, token string, quiet, wait time.Duration) ([]Member, error) {
	quiet = max(quiet, announceGap+150*time.Millisecond)
	if wait <= 0 {
		wait = 2 * time.Second
	}
	r, err := WatchRoster(nc, prefix, token)
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
