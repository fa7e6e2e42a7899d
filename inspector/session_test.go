package inspector

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// chanSession is a session with no socket: requests come from a channel,
// answers go to one, decoded, as a broker's transport would carry them.
type chanSession struct {
	in   chan protocol.Message
	out  chan protocol.Message
	once sync.Once
	done chan struct{}
}

func newChanSession() *chanSession {
	return &chanSession{in: make(chan protocol.Message, 8), out: make(chan protocol.Message, 64), done: make(chan struct{})}
}

func (s *chanSession) Receive() (protocol.Message, error) {
	select {
	case m := <-s.in:
		return m, nil
	case <-s.done:
		return nil, errors.New("closed")
	}
}

func (s *chanSession) Send(m protocol.Message) error {
	b, err := protocol.Encode(m)
	if err != nil {
		return err
	}
	return s.SendEncoded(b)
}

func (s *chanSession) SendEncoded(b []byte) error {
	m, err := protocol.Decode(b)
	if err != nil {
		return err
	}
	select {
	case s.out <- m:
		return nil
	case <-s.done:
		return errors.New("closed")
	}
}

func (s *chanSession) SetWriteDeadline(time.Time) error { return nil }
func (s *chanSession) MaxWrite() int                    { return protocol.DefaultMaxFrame }
func (s *chanSession) Close() error                     { s.once.Do(func() { close(s.done) }); return nil }

// TestAClientOverAnotherTransport: a client admitted with a session that
// is not a socket is served as a socket's client is: its requests reach
// the game half and its answers and subscription frames come back.
func TestAClientOverAnotherTransport(t *testing.T) {
	g := startGame(t, Options{})
	s := newChanSession()
	c, reject := g.agent.admitClient(s, "broker", true)
	if reject != nil {
		t.Fatal(reject.Reason)
	}
	go g.agent.serveClient(c)
	t.Cleanup(func() { _ = s.Close() })
	s.in <- &protocol.Query{ID: 7, Expr: "Health.HP<5", Limit: 10}
	s.in <- &protocol.Subscribe{ID: 8, What: protocol.SubSummary, Hz: 50}
	s.in <- &protocol.SetField{ID: 9, Entity: wire(g.ents[5]), Path: "Health.HP", Value: protocol.IntValue(1)}
	var page *protocol.Page
	var summary *protocol.Summary
	var refused *protocol.Reply
	for deadline := time.After(10 * time.Second); page == nil || summary == nil || refused == nil; {
		select {
		case m := <-s.out:
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
		case <-deadline:
			t.Fatalf("after 10 s: page %v, summary %v, the edit's reply %v", page != nil, summary != nil, refused)
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
