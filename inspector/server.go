package inspector

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The agent in two halves. The server half, here, takes connections:
// listening, handshakes (their own slots, tokens and their back-off),
// capabilities; it hands each admitted client to the game half (Sync's
// state: subscriptions, watchpoints, recorders, the rewind ring) through
// the inbox. A client reads and writes through a session, so another
// transport (a message broker's subjects) admits clients the same way.

// session is how one client's messages come and go: a socket's framed
// connection (*protocol.Conn), or anything that carries frames alike.
type session interface {
	Receive() (protocol.Message, error)
	Send(m protocol.Message) error
	SendEncoded(b []byte) error
	SetWriteDeadline(t time.Time) error
	MaxWrite() int
	Close() error
}

var _ session = (*protocol.Conn)(nil)

// socketServer is the server half's state for socket clients.
type socketServer struct {
	ln          net.Listener
	handshaking []*handshake              // connections in their handshake, oldest first
	failures    map[string]*tokenFailures // by remote host: wrong tokens
}

// Start listens on the configured address and serves clients in the
// background. It returns the listening error, if any: a refused address
// (see Options.AllowRemote) or a port in use.
func (a *Agent) Start() error {
	if a.opts.Addr != "" {
		ln, err := a.opts.listen()
		if err != nil {
			return err
		}
		a.ln = ln
		a.wg.Add(1)
		go a.acceptLoop(ln)
	}
	if a.opts.Broker != "" {
		if err := a.startBroker(); err != nil {
			if a.ln != nil {
				_ = a.ln.Close()
			}
			return err
		}
	}
	return nil
}

// Addr is where the agent listens ("unix:/path" for a Unix socket).
func (a *Agent) Addr() string {
	if a.ln == nil {
		return ""
	}
	if a.ln.Addr().Network() == "unix" {
		return "unix:" + a.ln.Addr().String()
	}
	return a.ln.Addr().String()
}

// Clients is how many clients are connected now.
func (a *Agent) Clients() int { return int(a.tel.clients.Load()) }

// Close stops listening, disconnects every client and waits for the agent's
// goroutines to end. A game paused by a client is released.
func (a *Agent) Close() error {
	var err error
	a.once.Do(func() {
		close(a.closed)
		if a.ln != nil {
			err = a.ln.Close()
		}
		a.closeBroker()
		a.mu.Lock()
		for c := range a.clients {
			c.drop(protocol.ErrState, "the agent is closing")
		}
		a.mu.Unlock()
		a.wg.Wait()
	})
	return err
}

// acceptLoop serves ln's connections (a socket's, or sessions over the
// broker) until the agent closes.
func (a *Agent) acceptLoop(ln net.Listener) {
	defer a.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-a.closed:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			a.logf("accept: %v", err)
			time.Sleep(10 * time.Millisecond) // out of descriptors, say: do not spin
			continue
		}
		a.wg.Add(1)
		go a.serve(nc)
	}
}

// serve runs the handshake, then the client's reader and writer.
// Connections in their handshake have slots of their own (MaxHandshakes),
// so silent ones cannot keep clients out; a client is counted against
// MaxClients once its hello is accepted.
func (a *Agent) serve(nc net.Conn) {
	defer a.wg.Done()
	conn := protocol.NewConn(nc)
	conn.SetLimits(a.opts.MaxFrame, protocol.DefaultMaxFrame)
	host := remoteHost(nc)
	hs := &handshake{conn: conn, since: time.Now()}
	if !a.takeHandshakeSlot(hs) {
		a.reject(conn, protocol.ErrBusy, fmt.Sprintf("the agent has %d connections in their handshake, each of which has sent its hello; try again", a.opts.MaxHandshakes))
		return
	}
	var c *client
	hello, err := protocol.ServerHandshake(conn, a.opts.HandshakeTimeout, func(h *protocol.Hello) (*protocol.Welcome, *protocol.Reject) {
		hs.heard.Store(true)
		welcome, reject := a.checkHello(h, host)
		if reject != nil {
			return nil, reject
		}
		if c, reject = a.admitClient(conn, h.Client, welcome.ReadOnly); reject != nil {
			return nil, reject
		}
		return welcome, nil
	})
	a.mu.Lock()
	a.handshaking = slices.DeleteFunc(a.handshaking, func(x *handshake) bool { return x == hs })
	a.mu.Unlock()
	if err != nil {
		a.logf("handshake from %v: %v", nc.RemoteAddr(), err)
		if c != nil { // accepted, but the welcome could not be sent
			a.mu.Lock()
			delete(a.clients, c)
			a.mu.Unlock()
		}
		_ = conn.Close()
		return
	}
	_ = hello
	conn.SetFrameTimeout(a.opts.FrameTimeout)
	a.serveClient(c)
}

// admitClient registers a client whose handshake passed, whatever carries it,
// unless the agent serves MaxClients already.
func (a *Agent) admitClient(conn session, name string, readOnly bool) (*client, *protocol.Reject) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.clients) >= a.opts.MaxClients {
		return nil, &protocol.Reject{Code: protocol.ErrBusy, Reason: fmt.Sprintf("the agent serves at most %d clients", a.opts.MaxClients)}
	}
	a.nextID++
	c := newClient(a, a.nextID, conn, name, readOnly)
	a.clients[c] = struct{}{}
	return c, nil
}

// serveClient hands an admitted client to the game half and serves it, its
// requests read here and its answers written on a goroutine of its own,
// until it is gone.
func (a *Agent) serveClient(c *client) {
	a.tel.clients.Add(1)
	a.inbound(inbound{c: c, joined: true})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		c.writeLoop()
	}()
	c.readLoop()
	<-c.done
	a.mu.Lock()
	delete(a.clients, c)
	a.mu.Unlock()
	a.tel.clients.Add(-1)
}

// handshake is a connection in its handshake; heard: its hello came.
type handshake struct {
	conn  *protocol.Conn
	since time.Time
	heard atomic.Bool
}

// takeHandshakeSlot gives hs one of the MaxHandshakes slots. When they are
// all taken, the oldest connection that has not sent its hello gives its
// slot up (it is told it was busy, and closed): connections that say
// nothing cannot keep one that speaks at once out. False when every slot's
// connection has spoken.
func (a *Agent) takeHandshakeSlot(hs *handshake) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.handshaking) >= a.opts.MaxHandshakes {
		i := slices.IndexFunc(a.handshaking, func(x *handshake) bool { return !x.heard.Load() })
		if i < 0 {
			return false
		}
		old := a.handshaking[i]
		a.handshaking = slices.Delete(a.handshaking, i, i+1)
		a.tel.evicted.Add(1)
		go a.reject(old.conn, protocol.ErrBusy, fmt.Sprintf("said nothing for %v while others waited for a handshake slot", time.Since(old.since).Round(time.Millisecond)))
	}
	a.handshaking = append(a.handshaking, hs)
	return true
}

// reject refuses a connection before its handshake, with a reason.
func (a *Agent) reject(conn *protocol.Conn, code, reason string) {
	_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
	_ = conn.Send(&protocol.Reject{Code: code, Reason: reason})
	_ = conn.Close()
}

// checkHello checks the token (with a back-off per remote host after wrong
// ones) and grants capabilities: "read" always, "edit" unless the agent is
// read-only or the client asked for capabilities without "edit".
func (a *Agent) checkHello(h *protocol.Hello, host string) (*protocol.Welcome, *protocol.Reject) {
	if a.opts.Token != "" {
		if !a.waitTokenBackoff(host) {
			return nil, &protocol.Reject{Code: protocol.ErrState, Reason: "the agent is closing"}
		}
		if subtle.ConstantTimeCompare([]byte(h.Token), []byte(a.opts.Token)) != 1 {
			reason := "the token is wrong"
			if h.Token == "" {
				reason = "this agent wants a token (--token)"
			}
			a.tokenFailed(host)
			return nil, &protocol.Reject{Code: protocol.ErrToken, Reason: reason}
		}
		// A right token does not clear the host's back-off: a guesser on
		// the same host as the holder keeps its wait.
	}
	readOnly := a.opts.ReadOnly || (len(h.Caps) > 0 && !slices.Contains(h.Caps, "edit"))
	caps := []string{"read"}
	if !readOnly {
		caps = append(caps, "edit")
	}
	return &protocol.Welcome{Game: a.opts.Game, Agent: AgentVersion, Caps: caps, MaxFrame: uint32(a.opts.MaxFrame), ReadOnly: readOnly}, nil
}
