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
func (s *server) acceptLoop(ln net.Listener) {
	defer s.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-s.closed:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.logf("accept: %v", err)
			time.Sleep(10 * time.Millisecond) // out of descriptors, say: do not spin
			continue
		}
		s.wg.Add(1)
		go s.serve(nc)
	}
}

// serve runs the handshake, then the client's reader and writer.
// Connections in their handshake have slots of their own (MaxHandshakes),
// so silent ones cannot keep clients out; a client is counted against
// MaxClients once its hello is accepted.
func (s *server) serve(nc net.Conn) {
	defer s.wg.Done()
	conn := protocol.NewConn(nc)
	conn.SetLimits(s.opts.MaxFrame, protocol.DefaultMaxFrame)
	host := remoteHost(nc)
	hs := &handshake{conn: conn, since: time.Now()}
	if !s.takeHandshakeSlot(hs) {
		s.reject(conn, protocol.ErrBusy, fmt.Sprintf("the agent has %d connections in their handshake, each of which has sent its hello; try again", s.opts.MaxHandshakes))
		return
	}
	var c *client
	hello, err := protocol.ServerHandshake(conn, s.opts.HandshakeTimeout, func(h *protocol.Hello) (*protocol.Welcome, *protocol.Reject) {
		hs.heard.Store(true)
		welcome, reject := s.checkHello(h, host)
		if reject != nil {
			return nil, reject
		}
		if c, reject = s.admitClient(conn, h.Client, welcome.ReadOnly); reject != nil {
			return nil, reject
		}
		return welcome, nil
	})
	s.mu.Lock()
	s.handshaking = slices.DeleteFunc(s.handshaking, func(x *handshake) bool { return x == hs })
	s.mu.Unlock()
	if err != nil {
		s.logf("handshake from %v: %v", nc.RemoteAddr(), err)
		if c != nil { // accepted, but the welcome could not be sent
			s.mu.Lock()
			delete(s.clients, c)
			s.mu.Unlock()
		}
		_ = conn.Close()
		return
	}
	_ = hello
	conn.SetFrameTimeout(s.opts.FrameTimeout)
	s.serveClient(c)
}

// admitClient registers a client whose handshake passed, whatever carries it,
// unless the agent serves MaxClients already.
func (s *server) admitClient(conn session, name string, readOnly bool) (*client, *protocol.Reject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clients) >= s.opts.MaxClients {
		return nil, &protocol.Reject{Code: protocol.ErrBusy, Reason: fmt.Sprintf("the agent serves at most %d clients", s.opts.MaxClients)}
	}
	s.nextID++
	c := newClient(s, s.nextID, conn, name, readOnly)
	s.clients[c] = struct{}{}
	return c, nil
}

// serveClient hands an admitted client to the game half and serves it, its
// requests read here and its answers written on a goroutine of its own,
// until it is gone.
func (s *server) serveClient(c *client) {
	s.tel.clients.Add(1)
	s.inbound(inbound{c: c, joined: true})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		c.writeLoop()
	}()
	c.readLoop()
	<-c.done
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
	s.tel.clients.Add(-1)
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
func (s *server) takeHandshakeSlot(hs *handshake) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.handshaking) >= s.opts.MaxHandshakes {
		i := slices.IndexFunc(s.handshaking, func(x *handshake) bool { return !x.heard.Load() })
		if i < 0 {
			return false
		}
		old := s.handshaking[i]
		s.handshaking = slices.Delete(s.handshaking, i, i+1)
		s.tel.evicted.Add(1)
		go s.reject(old.conn, protocol.ErrBusy, fmt.Sprintf("said nothing for %v while others waited for a handshake slot", time.Since(old.since).Round(time.Millisecond)))
	}
	s.handshaking = append(s.handshaking, hs)
	return true
}

// reject refuses a connection before its handshake, with a reason.
func (s *server) reject(conn *protocol.Conn, code, reason string) {
	_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
	_ = conn.Send(&protocol.Reject{Code: code, Reason: reason})
	_ = conn.Close()
}

// checkHello checks the token (with a back-off per remote host after wrong
// ones) and grants capabilities: "read" always, "edit" unless the agent is
// read-only or the client asked for capabilities without "edit".
func (s *server) checkHello(h *protocol.Hello, host string) (*protocol.Welcome, *protocol.Reject) {
	if s.opts.Token != "" {
		if !s.waitTokenBackoff(host) {
			return nil, &protocol.Reject{Code: protocol.ErrState, Reason: "the agent is closing"}
		}
		if subtle.ConstantTimeCompare([]byte(h.Token), []byte(s.opts.Token)) != 1 {
			reason := "the token is wrong"
			if h.Token == "" {
				reason = "this agent wants a token (--token)"
			}
			s.tokenFailed(host)
			return nil, &protocol.Reject{Code: protocol.ErrToken, Reason: reason}
		}
		// A right token does not clear the host's back-off: a guesser on
		// the same host as the holder keeps its wait.
	}
	readOnly := s.opts.ReadOnly || (len(h.Caps) > 0 && !slices.Contains(h.Caps, "edit"))
	caps := []string{"read"}
	if !readOnly {
		caps = append(caps, "edit")
	}
	return &protocol.Welcome{Game: s.opts.Game, Agent: AgentVersion, Caps: caps, MaxFrame: uint32(s.opts.MaxFrame), ReadOnly: readOnly}, nil
}
