package client

import (
	"fmt"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// FanOutWidth is how many instances a fan-out works on at once.
const FanOutWidth = 16

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

// onEach connects to every member in turn of a fan-out and runs fn on the
// connection, with the result so far (the instance named).
func onEach(t fleet.Target, token string, members []fleet.Member, fn func(o *OneShot, r InstanceResult) InstanceResult) []InstanceResult {
	return FanOut(members, func(m fleet.Member) InstanceResult {
		r := InstanceResult{Instance: m.Instance}
		o, err := Dial(t.WithInstance(m.Instance).URL(), token)
		if err != nil {
			r.Err = err
			return r
		}
		defer o.Close()
		return fn(o, r)
	})
}

// QueryEach runs a query on every member of t's fleet: each instance's
// total and its first limit matches, in words.
func QueryEach(t fleet.Target, token string, members []fleet.Member, expr string, limit int) []InstanceResult {
	return onEach(t, token, members, func(o *OneShot, r InstanceResult) InstanceResult {
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
func CommandEach(t fleet.Target, token string, members []fleet.Member, words []string) ([]InstanceResult, error) {
	build, what, err := ParseCommand(words)
	if err != nil {
		return nil, err
	}
	return onEach(t, token, members, func(o *OneShot, r InstanceResult) InstanceResult {
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

// Held is a command as a connection that leaves at once sends it: what it
// sets stays. A log-only watchpoint is kept, and a pausing one's pause is
// held when it fires; a pause (and the pause a step or a rewind leaves) is
// held until a resume or the game's hold timeout.
func Held(m protocol.Message) protocol.Message {
	switch m := m.(type) {
	case *protocol.Watch:
		m.Keep = m.Keep || m.Log
		m.Hold = !m.Log
	case *protocol.Pause:
		m.Hold = true
	case *protocol.Step:
		m.Hold = true
	case *protocol.Rewind:
		m.Hold = true
	}
	return m
}

// ListFleet lists the live instances on the broker addr names
// (nats://host:4222) that pass filter (fleet.Match), asking the fleet and
// waiting until answers stop coming (2 s at most).
func ListFleet(addr, filter string) (fleet.Target, []fleet.Member, error) {
	t, err := fleet.ParseURL(addr)
	if err != nil {
		return t, nil, err
	}
	if t.Instance != "" {
		return t, nil, fmt.Errorf("a fleet is named by the broker's URL, not one instance's: %s", t.WithInstance(""))
	}
	if _, err := fleet.Match(fleet.Member{}, filter); err != nil {
		return t, nil, err
	}
	nc, err := fleet.Connect(t, "ecsinspect "+Version, 3*time.Second)
	if err != nil {
		return t, nil, err
	}
	defer nc.Close()
	all, err := fleet.List(nc, t.Prefix, 0, 0)
	if err != nil {
		return t, nil, err
	}
	var picked []fleet.Member
	for _, m := range all {
		if ok, _ := fleet.Match(m, filter); ok {
			picked = append(picked, m)
		}
	}
	if len(all) == 0 {
		return t, nil, fmt.Errorf("no instance answered on the broker at %s within 2 s", t)
	}
	if len(picked) == 0 {
		return t, nil, fmt.Errorf("none of the %d instances on %s passes the filter %q", len(all), t, filter)
	}
	return t, picked, nil
}
