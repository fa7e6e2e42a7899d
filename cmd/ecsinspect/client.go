package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// oneShot is a short-lived connection for the headless commands: ask, wait
// for the answer, leave.
type oneShot struct {
	c    *protocol.Conn
	id   uint32
	game string // the game's name, from the handshake
}

func dialOneShot(addr, token string) (*oneShot, error) {
	c, w, err := connect(addr, token, "ecsinspect "+version)
	if err != nil {
		return nil, err
	}
	return &oneShot{c: c, id: 100, game: w.Game}, nil
}

func (o *oneShot) close() { o.c.Close() }

// await reads until keep accepts a message, or the deadline passes.
func (o *oneShot) await(keep func(protocol.Message) bool) (protocol.Message, error) {
	_ = o.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		m, err := o.c.Receive()
		if err != nil {
			return nil, fmt.Errorf("waiting for the agent: %w", err)
		}
		if keep(m) {
			return m, nil
		}
	}
}

// do sends a command built with a fresh id and returns the agent's reply,
// as an error if it refused.
func (o *oneShot) do(build func(id uint32) protocol.Message) (*protocol.Reply, error) {
	o.id++
	id := o.id
	if err := o.c.Send(build(id)); err != nil {
		return nil, err
	}
	m, err := o.await(func(m protocol.Message) bool { r, ok := m.(*protocol.Reply); return ok && r.ID == id })
	if err != nil {
		return nil, err
	}
	r := m.(*protocol.Reply)
	if !r.OK {
		return r, errors.New(r.Message)
	}
	return r, nil
}

// summary fetches one full summary.
func (o *oneShot) summary() (*protocol.Summary, error) {
	if err := o.c.Send(&protocol.Subscribe{ID: 1, What: protocol.SubSummary, Hz: 30}); err != nil {
		return nil, err
	}
	m, err := o.await(func(m protocol.Message) bool { _, ok := m.(*protocol.Summary); return ok })
	if err != nil {
		return nil, err
	}
	_ = o.c.Send(&protocol.Unsubscribe{ID: 2, Sub: 1})
	return m.(*protocol.Summary), nil
}

// query fetches the first limit matches of expr.
func (o *oneShot) query(expr string, limit int) (*protocol.Page, error) {
	o.id++
	id := o.id
	if err := o.c.Send(&protocol.Query{ID: id, Expr: expr, Limit: limit}); err != nil {
		return nil, err
	}
	m, err := o.await(func(m protocol.Message) bool {
		switch m := m.(type) {
		case *protocol.Page:
			return m.Sub == id
		case *protocol.Reply:
			return m.ID == id
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if r, ok := m.(*protocol.Reply); ok {
		return nil, errors.New(r.Message)
	}
	return m.(*protocol.Page), nil
}

// entity fetches one entity's detail.
func (o *oneShot) entity(e protocol.EntityID) (*protocol.Detail, error) {
	o.id++
	id := o.id
	if err := o.c.Send(&protocol.GetEntity{ID: id, Entity: e}); err != nil {
		return nil, err
	}
	m, err := o.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id })
	if err != nil {
		return nil, err
	}
	return m.(*protocol.Detail), nil
}
