package fleet

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Broker is a tool's connection to a broker, shared by everything the tool
// does there: the roster, and sessions with any number of instances. When
// the connection drops, every session open on it ends with the reason (its
// messages in flight are lost); the connection itself reconnects, and new
// sessions work once it is back.
type Broker struct {
	t  Target // the broker's (no instance)
	nc *nats.Conn

	mu       sync.Mutex
	sessions map[string]*streamConn // by instance "." session id
	timing   Timing
	// down is the one subscription every session's down subject comes
	// through (the client's own), made with the first session.
	down     *nats.Subscription
	downOnce sync.Once
	downErr  error
	lastErr  error // the newest asynchronous error (a slow consumer, a permission), never printed
}

// noteError keeps an asynchronous error of the connection for State,
// instead of the NATS client printing it (over a terminal UI).
func (b *Broker) noteError(err error) {
	b.mu.Lock()
	b.lastErr = err
	b.mu.Unlock()
}

// State says whether the broker is reachable now, and if not why, in
// words; the newest asynchronous error, if any.
func (b *Broker) State() (connected bool, why string, lastErr error) {
	b.mu.Lock()
	lastErr = b.lastErr
	b.mu.Unlock()
	if b.nc.IsConnected() {
		return true, "", lastErr
	}
	why = "the broker at " + b.t.String() + " cannot be reached"
	if err := b.nc.LastError(); err != nil {
		why += ": " + err.Error()
	}
	if b.nc.IsReconnecting() {
		why += "; reconnecting"
	}
	return false, why, lastErr
}

// ConnectBroker connects a tool to t's broker (t's instance, if any, is
// ignored). It fails at once with the broker's reason (unreachable, wrong
// credentials) rather than retrying; once connected it reconnects for as
// long as it is open.
func ConnectBroker(t Target, name string, timeout time.Duration, timing Timing) (*Broker, error) {
	b := &Broker{t: t.WithInstance(""), sessions: map[string]*streamConn{}, timing: timing}
	lost := func(nc *nats.Conn) {
		err := nc.LastError()
		if err == nil {
			err = errors.New("the connection closed")
		}
		b.loseAll(fmt.Errorf("fleet: lost the broker at %s: %v", b.t, err))
	}
	nc, err := Connect(t, name, timeout, nats.MaxReconnects(-1), nats.ClosedHandler(lost), nats.DisconnectHandler(lost),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { b.noteError(err) }))
	if err != nil {
		return nil, err
	}
	b.nc = nc
	return b, nil
}

// Target is the broker's target (no instance).
func (b *Broker) Target() Target { return b.t }

// Conn is the connection, for the roster and discovery.
func (b *Broker) Conn() *nats.Conn { return b.nc }

// Dial opens a session with one instance over the broker's connection. The
// instance must answer its ping first, so a name nobody serves fails at
// once.
func (b *Broker) Dial(instance string, timeout time.Duration) (net.Conn, error) {
	return b.dial(instance, timeout, true)
}

// DialKnown opens a session with an instance the caller just heard from
// (the roster): no ping first, one round trip less.
func (b *Broker) DialKnown(instance string, timeout time.Duration) (net.Conn, error) {
	return b.dial(instance, timeout, false)
}

// dial opens a session with instance: with ping, the instance must
// answer its ping first, so a name nobody serves fails at once. A session
// costs no subscription of its own: its bytes come through the client's
// one down subscription.
func (b *Broker) dial(instance string, timeout time.Duration, ping bool) (net.Conn, error) {
	t := b.t.WithInstance(instance)
	if ping {
		if _, err := b.nc.Request(PingSubject(t.Prefix, t.Instance), nil, timeout); err != nil {
			if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout) {
				return nil, fmt.Errorf("no instance %q answers on the broker at %s (attach to the broker's URL to see the fleet)", t.Instance, b.t)
			}
			return nil, fmt.Errorf("ask %s: %w", t, err)
		}
	}
	if err := b.subscribeDown(timeout); err != nil {
		return nil, err
	}
	id := newSessionID()
	c := newStreamConn(b.nc, UpSubject(t.Prefix, instance, t.Client, id), Addr("nats"), Addr("nats:"+instance), b.timing)
	key := instance + "." + id
	b.mu.Lock()
	b.sessions[key] = c
	b.mu.Unlock()
	c.onClose = func() {
		b.mu.Lock()
		delete(b.sessions, key)
		b.mu.Unlock()
	}
	return c, nil
}

// subscribeDown makes the client's down subscription, once, and waits
// until the broker has it.
func (b *Broker) subscribeDown(timeout time.Duration) error {
	b.downOnce.Do(func() {
		sub, err := b.nc.Subscribe(DownSubject(b.t.Prefix, "*", b.t.Client, "*"), b.route)
		if err == nil {
			err = sub.SetPendingLimits(-1, -1) // each session bounds what it holds unread (maxBuffered)
		}
		if err == nil {
			err = b.nc.FlushTimeout(timeout)
		}
		b.down, b.downErr = sub, err
	})
	return b.downErr
}

// route hands a down message to its session; one for no session (closed,
// or never opened) is dropped.
func (b *Broker) route(m *nats.Msg) {
	instance, session, ok := downOf(m.Subject, b.t.Prefix, b.t.Client)
	if !ok {
		return
	}
	b.mu.Lock()
	c := b.sessions[instance+"."+session]
	b.mu.Unlock()
	if c != nil {
		c.deliver(m)
	}
}

// loseAll ends every open session with err.
func (b *Broker) loseAll(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.sessions {
		c.lose(err)
	}
}

// Close flushes what was sent and closes the connection: every session on
// it ends.
func (b *Broker) Close() {
	Flush(b.nc)
	b.nc.Close()
}
