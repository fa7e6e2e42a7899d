package fleet

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// Listener is an instance's end of the broker, a net.Listener: each new
// session a client opens on the instance's up subjects is Accepted as a
// net.Conn, which the agent serves as it serves a socket's connection.
type Listener struct {
	nc       *nats.Conn
	prefix   string
	instance string
	timing   Timing
	sub      *nats.Subscription
	pending  chan net.Conn
	closed   chan struct{}
	once     sync.Once

	mu       sync.Mutex
	sessions map[string]*streamConn
	unread   budget      // bytes its sessions hold unread
	opens    float64     // sessions it may open now (OpenRate a second, OpenBurst at most)
	refilled time.Time   // when opens was last refilled
	clients  clientRooms // each client's own budget (clientrooms.go)

	// Opened counts sessions opened; Refused, sessions refused (too many
	// open, or past the opening rate); Stray, messages for no session.
	Opened, Refused, Stray atomic.Uint64
}

// MaxSessions bounds an instance's open sessions over the broker (those in
// their handshake included); more are refused at once. The agent's own
// MaxHandshakes and MaxClients apply inside it.
const MaxSessions = 256

// OpenRate is the sessions an instance opens at most a second, OpenBurst
// at once: a flood of openings is refused past it, unanswered, so it
// costs the game little.
const (
	OpenRate  = 20
	OpenBurst = 64
)

// Listen starts taking sessions for instance on nc, with timing (zero
// fields: the defaults).
func Listen(nc *nats.Conn, prefix, instance string, timing Timing) (*Listener, error) {
	if err := CheckName("instance", instance, false); err != nil {
		return nil, err
	}
	l := &Listener{nc: nc, prefix: prefix, instance: instance, timing: timing, pending: make(chan net.Conn, 16), closed: make(chan struct{}), sessions: map[string]*streamConn{},
		opens: OpenBurst, refilled: time.Now(), clients: clientRooms{}}
	l.unread.limit = instanceBuffered
	sub, err := nc.Subscribe(UpSubject(prefix, instance, "*", "*"), l.route)
	if err != nil {
		return nil, err
	}
	// A flood past these is dropped by the broker's client, not queued:
	// the sessions it hit see the gap and end.
	if err := sub.SetPendingLimits(8192, 64<<20); err != nil {
		return nil, err
	}
	l.sub = sub
	Flush(nc) // in place before Listen returns, when the broker is reached
	return l, nil
}

// route hands a message to its session, opening one for a first message.
func (l *Listener) route(m *nats.Msg) {
	client, session, ok := sessionOf(m.Subject, l.prefix, l.instance)
	if !ok {
		l.Stray.Add(1)
		return
	}
	id := client + "." + session
	l.mu.Lock()
	c := l.sessions[id]
	if c == nil {
		opening := m.Header.Get(SeqHeader) == "1" && m.Header.Get(OpHeader) == ""
		if !opening {
			l.mu.Unlock()
			l.Stray.Add(1)
			return
		}
		down := DownSubject(l.prefix, l.instance, client, session)
		if len(l.sessions) >= MaxSessions {
			l.mu.Unlock()
			l.refuse(down, "the instance has "+strconv.Itoa(MaxSessions)+" sessions open over the broker")
			return
		}
		now := time.Now()
		l.opens = min(OpenBurst, l.opens+now.Sub(l.refilled).Seconds()*OpenRate)
		l.refilled = now
		if l.opens < 1 {
			l.mu.Unlock()
			l.Refused.Add(1) // unanswered: a flood costs no reply each
			return
		}
		if ok, why := l.clients.take(client, now); !ok {
			l.mu.Unlock()
			if why == "" {
				l.Refused.Add(1) // the client's own flood: unanswered
				return
			}
			l.refuse(down, why)
			return
		}
		l.opens--
		c = newStreamConn(l.nc, down, Addr("nats:"+l.instance), Addr("nats:"+client), l.timing)
		c.limit, c.shared = sessionBuffered, &l.unread
		c.onClose = func() { l.forget(id, client) }
		select {
		case l.pending <- c:
		default:
			l.clients.give(client)
			l.mu.Unlock()
			c.onClose = nil
			_ = c.closeWith("busy: sessions wait to be served")
			l.Refused.Add(1)
			return
		}
		l.sessions[id] = c
		l.Opened.Add(1)
	}
	l.mu.Unlock()
	c.deliver(m)
}

// refuse tells a client its session was not opened.
func (l *Listener) refuse(down, reason string) {
	l.Refused.Add(1)
	m := nats.NewMsg(down)
	m.Header.Set(SeqHeader, "1")
	m.Header.Set(OpHeader, "close")
	m.Header.Set(ReasonHeader, reason)
	_ = l.nc.PublishMsg(m)
}

func (l *Listener) forget(id, client string) {
	l.mu.Lock()
	if _, ok := l.sessions[id]; ok {
		delete(l.sessions, id)
		l.clients.give(client)
	}
	l.mu.Unlock()
}

// Lost ends every open session with err: the connection to the broker
// broke, so their messages in flight were lost. Call it from the
// connection's disconnect handler.
func (l *Listener) Lost(err error) {
	for _, c := range l.open() {
		c.lose(fmt.Errorf("fleet: the connection to the broker broke: %v", err))
	}
}

// open is the sessions open now.
func (l *Listener) open() []*streamConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*streamConn, 0, len(l.sessions))
	for _, c := range l.sessions {
		out = append(out, c)
	}
	return out
}

// Sessions is how many sessions are open.
func (l *Listener) Sessions() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sessions)
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.pending:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener: it stops taking sessions and closes the
// open ones.
func (l *Listener) Close() error {
	l.once.Do(func() {
		close(l.closed)
		_ = l.sub.Unsubscribe()
		for _, c := range l.open() {
			_ = c.closeWith("the instance stopped serving the broker")
		}
	})
	return nil
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return Addr("nats:" + l.instance) }

var _ net.Listener = (*Listener)(nil)
