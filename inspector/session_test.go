package inspector

import (
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// pipeListener is a listener with no socket: each Dial hands the agent
// one end of an in-memory pipe, as another transport (a broker's
// sessions) hands it connections.
type pipeListener struct {
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// Dial connects to the agent serving l: the client's end of a new pipe.
func (l *pipeListener) Dial() (net.Conn, error) {
	agentSide, clientSide := net.Pipe()
	select {
	case l.conns <- agentSide:
		return clientSide, nil
	case <-l.done:
		return nil, errors.New("the listener closed")
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// TestAClientOverAnotherTransport: a client that comes through another
// listener than the agent's socket (as a broker's sessions do) is served
// as a socket's client is: its handshake, its requests reaching the game
// half, its answers and subscription frames coming back.
func TestAClientOverAnotherTransport(t *testing.T) {
	g := startGame(t, Options{})
	ln := newPipeListener()
	g.agent.srv.Serve(ln)
	nc, err := ln.Dial()
	must(t, err)
	conn := protocol.NewConn(nc)
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := protocol.ClientHandshake(conn, protocol.Hello{Version: protocol.Version, Client: "pipe", Caps: []string{"read"}}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	must(t, conn.Send(&protocol.Query{ID: 7, Expr: "Health.HP<5", Limit: 10}))
	must(t, conn.Send(&protocol.Subscribe{ID: 8, What: protocol.SubSummary, Hz: 50}))
	must(t, conn.Send(&protocol.SetField{ID: 9, Entity: wire(g.ents[5]), Path: "Health.HP", Value: protocol.IntValue(1)}))
	var page *protocol.Page
	var summary *protocol.Summary
	var refused *protocol.Reply
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for page == nil || summary == nil || refused == nil {
		m, err := conn.Receive()
		if err != nil {
			t.Fatalf("page %v, summary %v, the edit's reply %v: %v", page != nil, summary != nil, refused, err)
		}
		switch m := m.(type) {
		case *protocol.Page:
			page = m
		case *protocol.Summary:
			summary = m
		case *protocol.Reply:
			if m.ID == 9 {
				refused = m
			}
		}
	}
	if page.Sub != 7 || page.Total != 5 {
		t.Fatalf("the query's page: sub %d, %d matches, want 5 (HP 0 to 4)", page.Sub, page.Total)
	}
	if summary.Sub != 8 || summary.Entities != 20 {
		t.Fatalf("the summary: sub %d, %d entities", summary.Sub, summary.Entities)
	}
	if refused.OK || refused.Code != protocol.ErrReadOnly {
		t.Fatalf("a read-only session's edit: %+v", refused)
	}
}
