package client

import (
	"fmt"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// OneShot is a short-lived connection for the headless commands: ask, wait
// for the answer, leave.
type OneShot struct {
	Conn *protocol.Conn
	ID   uint32 // the last request id used
	Game string // the game's name, from the handshake
}

// Dial connects to an agent for a few requests.
func Dial(addr, token string) (*OneShot, error) { return GameAt(addr, token).Dial() }

// Close ends the connection.
func (o *OneShot) Close() { o.Conn.Close() }

// Await reads until keep accepts a message, or 10 s pass.
func (o *OneShot) Await(keep func(protocol.Message) bool) (protocol.Message, error) {
	return o.AwaitFor(10*time.Second, keep)
}

// AwaitFor reads until keep accepts a message, or wait passes.
func (o *OneShot) AwaitFor(wait time.Duration, keep func(protocol.Message) bool) (protocol.Message, error) {
	_ = o.Conn.SetReadDeadline(time.Now().Add(wait))
	for {
		m, err := o.Conn.Receive()
		if err != nil {
			return nil, fmt.Errorf("waiting for the agent: %w", err)
		}
		if keep(m) {
			return m, nil
		}
	}
}

// WaitHit waits until a watchpoint that pauses the game fires (with
// logged, any watchpoint, log-only ones too), up to wait.
func (o *OneShot) WaitHit(wait time.Duration, logged bool) (*protocol.WatchHit, error) {
	return o.WaitHitOf(wait, func(h *protocol.WatchHit) bool { return logged || h.Paused })
}

// WaitHitOf waits up to wait for a watchpoint hit that accept takes.
func (o *OneShot) WaitHitOf(wait time.Duration, accept func(*protocol.WatchHit) bool) (*protocol.WatchHit, error) {
	m, err := o.AwaitFor(wait, func(m protocol.Message) bool {
		h, ok := m.(*protocol.WatchHit)
		return ok && accept(h)
	})
	if err != nil {
		return nil, err
	}
	return m.(*protocol.WatchHit), nil
}

// Do sends a command built with a fresh id and returns the agent's reply,
// as an error if it refused.
func (o *OneShot) Do(build func(id uint32) protocol.Message) (*protocol.Reply, error) {
	o.ID++
	id := o.ID
	if err := o.Conn.Send(build(id)); err != nil {
		return nil, err
	}
	m, err := o.Await(func(m protocol.Message) bool { r, ok := m.(*protocol.Reply); return ok && r.ID == id })
	if err != nil {
		return nil, err
	}
	r := m.(*protocol.Reply)
	if !r.OK {
		return r, &ReplyError{Code: r.Code, Message: r.Message}
	}
	return r, nil
}

// ReplyError is a request the agent refused: its code (protocol.Err...)
// and its reason.
type ReplyError struct{ Code, Message string }

func (e *ReplyError) Error() string { return e.Message }

// summary fetches one full summary: the first frame of a subscription of
// its own (frames of an earlier one may still be on their way).
func (o *OneShot) Summary() (*protocol.Summary, error) {
	sub, end, err := o.subscribeSummary()
	if err != nil {
		return nil, err
	}
	defer end()
	m, err := o.Await(func(m protocol.Message) bool { s, ok := m.(*protocol.Summary); return ok && s.Sub == sub })
	if err != nil {
		return nil, err
	}
	return m.(*protocol.Summary), nil
}

// WaitPaused reads the summary until it shows the game paused (an exact
// rewind replaying its frames, a step running) and returns that summary,
// or fails after wait.
func (o *OneShot) WaitPaused(wait time.Duration) (*protocol.Summary, error) {
	sub, end, err := o.subscribeSummary()
	if err != nil {
		return nil, err
	}
	defer end()
	m, err := o.AwaitFor(wait, func(m protocol.Message) bool { s, ok := m.(*protocol.Summary); return ok && s.Sub == sub && s.Paused })
	if err != nil {
		return nil, fmt.Errorf("the game did not pause in %v: %w", wait, err)
	}
	return m.(*protocol.Summary), nil
}

// subscribeSummary subscribes to the summary under a new id; end
// unsubscribes.
func (o *OneShot) subscribeSummary() (sub uint32, end func(), err error) {
	o.ID++
	sub = o.ID
	if err := o.Conn.Send(&protocol.Subscribe{ID: sub, What: protocol.SubSummary, Hz: 30}); err != nil {
		return 0, nil, err
	}
	return sub, func() {
		o.ID++
		_ = o.Conn.Send(&protocol.Unsubscribe{ID: o.ID, Sub: sub})
	}, nil
}

// Query fetches the first limit matches of expr.
func (o *OneShot) Query(expr string, limit int) (*protocol.Page, error) {
	return o.QueryFrom(expr, 0, limit)
}

// QueryFrom runs a query once: at most limit matches from the offset-th.
func (o *OneShot) QueryFrom(expr string, offset, limit int) (*protocol.Page, error) {
	m, err := o.ask(func(id uint32) protocol.Message {
		return &protocol.Query{ID: id, Expr: expr, Offset: offset, Limit: limit}
	})
	if err != nil {
		return nil, err
	}
	return m.(*protocol.Page), nil
}

// Entity fetches one entity's detail; a dead one is an error saying why.
func (o *OneShot) Entity(e protocol.EntityID) (*protocol.Detail, error) {
	m, err := o.ask(func(id uint32) protocol.Message { return &protocol.GetEntity{ID: id, Entity: e} })
	if err != nil {
		return nil, err
	}
	return m.(*protocol.Detail), nil
}

// Resource fetches a page of the value at path in a resource, or with
// all the value whole (see protocol.GetResource).
func (o *OneShot) Resource(name, path string, offset, limit int, all bool) (*protocol.ResourcePage, error) {
	m, err := o.ask(func(id uint32) protocol.Message {
		return &protocol.GetResource{ID: id, Name: name, Path: path, Offset: offset, Limit: limit, All: all}
	})
	if err != nil {
		return nil, err
	}
	return m.(*protocol.ResourcePage), nil
}

// Dangling fetches a page of every dangling handle the agent lists,
// oldest first, grouped by where they are (see protocol.GetDangling).
func (o *OneShot) Dangling(offset, limit int) (*protocol.DanglingPage, error) {
	m, err := o.ask(func(id uint32) protocol.Message { return &protocol.GetDangling{ID: id, Offset: offset, Limit: limit} })
	if err != nil {
		return nil, err
	}
	return m.(*protocol.DanglingPage), nil
}

// ask sends the request build makes under a new id and waits for its
// answer: the message that carries the id as its sub, or a refusal as an
// error.
func (o *OneShot) ask(build func(id uint32) protocol.Message) (protocol.Message, error) {
	o.ID++
	id := o.ID
	if err := o.Conn.Send(build(id)); err != nil {
		return nil, err
	}
	m, err := o.Await(func(m protocol.Message) bool {
		switch m := m.(type) {
		case *protocol.Reply:
			return m.ID == id
		case *protocol.Page:
			return m.Sub == id
		case *protocol.Detail:
			return m.Sub == id
		case *protocol.ResourcePage:
			return m.Sub == id
		case *protocol.DanglingPage:
			return m.Sub == id
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if r, ok := m.(*protocol.Reply); ok {
		return nil, &ReplyError{Code: r.Code, Message: r.Message}
	}
	return m, nil
}
