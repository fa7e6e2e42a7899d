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
	sessions map[*streamConn]struct{}
	timing   Timing
}

// ConnectBroker connects a tool to t's broker (t's instance, if any, is
// ignored). It fails at once with the broker's reason (unreachable, wrong
// credentials) rather than retrying; once connected it reconnects for as
// long as it is open.
func ConnectBroker(t Target, name string, timeout time.Duration, timing Timing) (*Broker, error) {
	b := &Broker{t: t.WithInstance(""), sessions: map[*streamConn]struct{}{}, timing: timing}
	lost := func(nc *nats.Conn) {
		err := nc.LastError()
		if err == nil {
			err = errors.New("the connection closed")
		}
		b.loseAll(fmt.Errorf("fleet: lost the broker at %s: %v", b.t, err))
	}
	nc, err := Connect(t, name, timeout, nats.MaxReconnects(-1), nats.ClosedHandler(lost), nats.DisconnectHandler(lost))
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
	c, err := dialSession(b.nc, b.t.WithInstance(instance), timeout, b.timing)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.sessions[c] = struct{}{}
	b.mu.Unlock()
	c.alsoClose(func() {
		b.mu.Lock()
		delete(b.sessions, c)
		b.mu.Unlock()
	})
	return c, nil
}

// loseAll ends every open session with err.
func (b *Broker) loseAll(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.sessions {
		c.lose(err)
	}
}

// Close flushes what was sent and closes the connection: every session on
// it ends.
func (b *Broker) Close() {
	Flush(b.nc)
	b.nc.Close()
}
