package client

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Fleet is a client's hold on the games of one broker: one connection,
// shared by the roster, by sessions with any instance (Game) and by
// fan-outs to many (QueryEach, CommandEach).
type Fleet struct {
	broker *fleet.Broker
	token  string // every instance's

	mu     sync.Mutex
	roster *fleet.Roster // once Follow is called
	// pool keeps a session with each instance a fan-out reached, for the
	// next: a fan-out then costs a request and its answer an instance.
	pool map[string]*pooled
}

// pooled is one kept session, used by one fan-out at a time.
type pooled struct {
	mu sync.Mutex
	o  *OneShot
}

// OpenFleet connects to the broker addr names (nats://host:4222, with
// credentials and ?prefix= as a URL takes them; without them, those saved
// for the broker); token is proved to every instance, and checks their
// announcements. It fails at once if the broker cannot be reached.
func OpenFleet(addr, token string) (*Fleet, error) {
	addr, token = withSavedCredentials(addr, token)
	t, err := fleet.ParseURL(addr)
	if err != nil {
		return nil, err
	}
	if t.Instance != "" {
		return nil, fmt.Errorf("a fleet is named by the broker's URL, not one instance's: %s", t.WithInstance(""))
	}
	b, err := fleet.ConnectBroker(t, "ecsinspect "+Version, 3*time.Second, fleet.Timing{})
	if err != nil {
		return nil, err
	}
	return &Fleet{broker: b, token: token}, nil
}

// BrokerState says whether the broker is reachable now, and if not why.
func (f *Fleet) BrokerState() (connected bool, why string) {
	connected, why, _ = f.broker.State()
	return connected, why
}

// Target is the fleet's broker and prefix, for showing (String leaves the
// credentials out).
func (f *Fleet) Target() fleet.Target { return f.broker.Target() }

// Game is one instance of the fleet, reached over the fleet's connection.
func (f *Fleet) Game(instance string) Game {
	return Game{token: f.token, fleet: f, instance: instance}
}

// Follow starts keeping the roster (Members, Changed) up to date from the
// instances' announcements.
func (f *Fleet) Follow() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.roster != nil {
		return nil
	}
	r, err := fleet.WatchRoster(f.broker.Conn(), f.Target().Prefix, f.token)
	if err != nil {
		return err
	}
	f.roster = r
	return nil
}

// Roster is the followed roster (nil before Follow).
func (f *Fleet) Roster() *fleet.Roster {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.roster
}

// List asks the fleet which instances are live and keeps those that pass
// filter (fleet.Match), waiting until answers stop coming (2 s at most).
func (f *Fleet) List(filter string) ([]fleet.Member, error) {
	if _, err := fleet.Match(fleet.Member{}, filter); err != nil {
		return nil, err
	}
	all, err := fleet.List(f.broker.Conn(), f.Target().Prefix, f.token, 0, 0)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no instance answered on the broker at %s within 2 s", f.Target())
	}
	var picked []fleet.Member
	for _, m := range all {
		if ok, _ := fleet.Match(m, filter); ok {
			picked = append(picked, m)
		}
	}
	if len(picked) == 0 {
		return nil, fmt.Errorf("none of the %d instances on %s passes the filter %q", len(all), f.Target(), filter)
	}
	return picked, nil
}

// Close ends the roster, the kept sessions and the connection.
func (f *Fleet) Close() {
	if r := f.Roster(); r != nil {
		r.Close()
	}
	f.mu.Lock()
	pool := f.pool
	f.pool = nil
	f.mu.Unlock()
	for _, p := range pool {
		p.mu.Lock()
		if p.o != nil {
			p.o.Close()
		}
		p.mu.Unlock()
	}
	f.broker.Close()
}

// kept is the pool's place for instance.
func (f *Fleet) kept(instance string) *pooled {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pool == nil {
		f.pool = map[string]*pooled{}
	}
	p := f.pool[instance]
	if p == nil {
		p = &pooled{}
		f.pool[instance] = p
	}
	return p
}

// FanOutWidth is how many instances a fan-out works on at once: every
// instance of a fleet of that many, each with its own session on the one
// broker connection.
const FanOutWidth = 256

// FanOut runs fn for each member of a fleet, FanOutWidth at once; the
// results come in the members' order.
func FanOut[R any](members []fleet.Member, fn func(fleet.Member) R) []R {
	out := make([]R, len(members))
	sem := make(chan struct{}, FanOutWidth)
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = fn(m)
		}()
	}
	wg.Wait()
	return out
}

// InstanceResult is what one instance answered in a fan-out, in words, or
// why it could not.
type InstanceResult struct {
	Instance string
	Text     string
	Total    int // a query's matches
	Err      error
}

// HoldingMatch is how many instances of a fanned-out query hold a match:
// those whose total is one or more.
func HoldingMatch(totals []int) int {
	n := 0
	for _, t := range totals {
		if t > 0 {
			n++
		}
	}
	return n
}

// onEach runs fn on a session with every member, all at once, with the
// result so far (the instance named). Sessions are kept for the next
// fan-out; one whose connection failed is dropped (a refused request
// keeps it).
func (f *Fleet) onEach(members []fleet.Member, fn func(o *OneShot, r InstanceResult) InstanceResult) []InstanceResult {
	return FanOut(members, func(m fleet.Member) InstanceResult {
		r := InstanceResult{Instance: m.Instance}
		p := f.kept(m.Instance)
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.o == nil {
			o, err := f.Game(m.Instance).known().Dial()
			if err != nil {
				r.Err = err
				return r
			}
			p.o = o
		}
		r = fn(p.o, r)
		var refused *ReplyError
		if r.Err != nil && !errors.As(r.Err, &refused) {
			p.o.Close()
			p.o = nil
		}
		return r
	})
}

// QueryEach runs a query on every member: each instance's total and its
// first limit matches, in words.
func (f *Fleet) QueryEach(members []fleet.Member, expr string, limit int) []InstanceResult {
	return f.onEach(members, func(o *OneShot, r InstanceResult) InstanceResult {
		p, err := o.Query(expr, limit)
		if err != nil {
			r.Err = err
			return r
		}
		r.Total = p.Total
		r.Text = fmt.Sprintf("%d match", p.Total)
		for _, row := range p.Rows {
			r.Text += "  " + row.Entity.String()
		}
		return r
	})
}

// CommandEach sends one command (as exec takes it: "pause", "watch EXPR",
// ...) to every member, held as exec holds it; each result is the agent's
// reply in words.
func (f *Fleet) CommandEach(members []fleet.Member, words []string) ([]InstanceResult, error) {
	build, what, err := ParseCommand(words)
	if err != nil {
		return nil, err
	}
	return f.onEach(members, func(o *OneShot, r InstanceResult) InstanceResult {
		reply, err := o.Do(func(id uint32) protocol.Message { return Held(build(id)) })
		if err != nil {
			r.Err = fmt.Errorf("%s: %w", what, err)
			return r
		}
		r.Text = what + ": ok"
		switch {
		case reply.Watch != 0:
			r.Text = fmt.Sprintf("%s: watchpoint %d", what, reply.Watch)
		case reply.Entity != 0:
			r.Text = fmt.Sprintf("%s: %v", what, reply.Entity)
		case reply.Message != "":
			r.Text = what + ": " + reply.Message
		}
		return r
	}), nil
}
