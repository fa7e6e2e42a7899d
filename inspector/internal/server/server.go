package server

import (
	"errors"
	"fmt"
	"log"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// Config is what the server is told by the agent's options.
type Config struct {
	Game           string // named in the welcome
	AgentVersion   string // named in the welcome
	Token          string // a client must present it ("" for none)
	ReadOnly       bool   // every session is read-only
	MaxClients     int    // admitted clients at once; more are refused as busy
	MaxHandshakes  int    // connections in their handshake at once
	MaxFrame       int    // the largest frame read from a client, in bytes
	MaxQueuedBytes int64  // a client's unsent answers past it drop the client
	// FrameTimeout drops a client that sends part of a frame and stops;
	// HandshakeTimeout one that connects and says nothing; StuckTimeout one
	// whose socket takes nothing.
	FrameTimeout, HandshakeTimeout, StuckTimeout time.Duration
	// Logf receives the server's notes (clients dropped, handshakes that
	// failed); nil: none.
	Logf func(format string, args ...any)
}

// Event tells the game half that a client joined or left.
type Event struct {
	Client *Client
	Joined bool // false: the client is gone
}

// session is how one client's messages come and go: a socket's framed
// connection (*protocol.Conn), or anything that carries frames alike.
type session interface {
	ReceiveRequest() (protocol.Request, error)
	Send(m protocol.Message) error
	SendEncoded(b []byte) error
	SetWriteDeadline(t time.Time) error
	MaxWrite() int
	Sealed() bool
	Close() error
}

var _ session = (*protocol.Conn)(nil)

// Server is the agent's server half: it takes connections from the
// listeners it is handed (a socket's, sessions over a broker), runs their
// handshakes (slots of their own, tokens with a back-off per host),
// admits clients, reads their requests and writes what the game half
// queues for them. It never touches the world.
type Server struct {
	cfg Config

	events  chan Event
	wake    chan struct{}
	work    chan struct{} // the writers' slots for building and encoding (workers.go)
	waiting atomic.Int32  // writers waiting for a slot
	closed  chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
	writers writerNames // the names clients write under in the journal

	mu          sync.Mutex
	clients     map[*Client]struct{}      // every connected client, whatever carries it
	nextID      int                       // the last client's id
	handshaking []*handshake              // connections in their handshake, oldest first
	failures    map[string]*tokenFailures // by remote host: wrong tokens
	listeners   []net.Listener

	tel counters
}

// New makes a server; Serve hands it listeners.
func New(cfg Config) *Server {
	return &Server{
		cfg:      cfg,
		events:   make(chan Event, 4096),
		work:     make(chan struct{}, workSlots()),
		wake:     make(chan struct{}, 1),
		closed:   make(chan struct{}),
		clients:  map[*Client]struct{}{},
		failures: map[string]*tokenFailures{},
	}
}

// Events is where clients' arrivals and departures come, for the game
// goroutine to take.
func (s *Server) Events() <-chan Event { return s.events }

// Woken is signalled when a client's request or departure waits for the
// game goroutine, or WakeGame was called.
func (s *Server) Woken() <-chan struct{} { return s.wake }

// WakeGame signals Woken without blocking.
func (s *Server) WakeGame() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Closed is closed once Close begins.
func (s *Server) Closed() <-chan struct{} { return s.closed }

// Clients is how many clients are connected now.
func (s *Server) Clients() int { return int(s.tel.clients.Load()) }

// Logf notes what the agent did, to Config.Logf.
func (s *Server) Logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	} else if debugLog {
		log.Printf("inspector: "+format, args...)
	}
}

var debugLog = false

// Go runs f on a goroutine Close waits for.
func (s *Server) Go(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// Serve serves ln's connections (a socket's, or sessions over a broker)
// until ln or the server closes; it returns at once. Close closes ln.
func (s *Server) Serve(ln net.Listener) {
	s.mu.Lock()
	s.listeners = append(s.listeners, ln)
	s.mu.Unlock()
	s.Go(func() { s.acceptLoop(ln) })
}

// Close stops the listeners, disconnects every client and waits for the
// server's goroutines to end; the error is the first listener's.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		s.mu.Lock()
		lns := s.listeners
		for c := range s.clients {
			c.Drop(protocol.ErrState, "the agent is closing")
		}
		s.mu.Unlock()
		for i, ln := range lns {
			if e := ln.Close(); i == 0 {
				err = e
			}
		}
		s.wg.Wait()
	})
	return err
}

// acceptLoop serves ln's connections until the server closes.
func (s *Server) acceptLoop(ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-s.closed:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.Logf("accept: %v", err)
			time.Sleep(10 * time.Millisecond) // out of descriptors, say: do not spin
			continue
		}
		arrived := time.Now() // here, in the order they came: serve's goroutines start in any
		s.Go(func() { s.serve(nc, arrived) })
	}
}

// serve runs the handshake, then the client's reader and writer.
// Connections in their handshake have slots of their own (MaxHandshakes),
// so silent ones cannot keep clients out; a client is counted against
// MaxClients once its hello is accepted.
func (s *Server) serve(nc net.Conn, arrived time.Time) {
	conn := protocol.NewConn(nc)
	conn.SetLimits(s.cfg.MaxFrame, protocol.DefaultMaxFrame)
	host := remoteHost(nc)
	hs := &handshake{conn: conn, since: arrived}
	if !s.takeHandshakeSlot(hs) {
		s.reject(conn, protocol.ErrBusy, fmt.Sprintf("the agent has %d connections in their handshake, each of which has sent its hello; try again", s.cfg.MaxHandshakes))
		return
	}
	var c *Client
	_, err := protocol.ServerHandshake(conn, s.cfg.HandshakeTimeout, func(h *protocol.Hello, prove protocol.Prover) (*protocol.Welcome, *protocol.Reject) {
		hs.heard.Store(true)
		welcome, reject := s.checkHello(h, host, prove)
		if reject != nil {
			return nil, reject
		}
		if c, reject = s.admit(conn, protocol.ClientName(h.Client), welcome.ReadOnly); reject != nil {
			return nil, reject
		}
		return welcome, nil
	})
	s.mu.Lock()
	s.handshaking = slices.DeleteFunc(s.handshaking, func(x *handshake) bool { return x == hs })
	s.mu.Unlock()
	if err != nil {
		s.Logf("handshake from %v: %v", nc.RemoteAddr(), err)
		if c != nil { // accepted, but the welcome could not be sent
			s.mu.Lock()
			delete(s.clients, c)
			s.mu.Unlock()
		}
		_ = conn.Close()
		return
	}
	conn.SetFrameTimeout(s.cfg.FrameTimeout)
	s.serveClient(c)
}

// admit registers a client whose handshake passed, whatever carries it,
// unless the agent serves MaxClients already.
func (s *Server) admit(conn session, name string, readOnly bool) (*Client, *protocol.Reject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.clients) >= s.cfg.MaxClients {
		return nil, &protocol.Reject{Code: protocol.ErrBusy, Reason: fmt.Sprintf("the agent serves at most %d clients", s.cfg.MaxClients)}
	}
	s.nextID++
	c := newClient(s, s.nextID, conn, name, readOnly)
	s.clients[c] = struct{}{}
	return c, nil
}

// serveClient hands an admitted client to the game half and serves it, its
// requests read here and its answers written on a goroutine of its own,
// until it is gone.
func (s *Server) serveClient(c *Client) {
	s.tel.clients.Add(1)
	s.event(Event{Client: c, Joined: true})
	s.Go(c.writeLoop)
	c.readLoop()
	<-c.done
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
	s.tel.clients.Add(-1)
}

// event hands a client's arrival or departure to the game goroutine.
func (s *Server) event(e Event) {
	select {
	case s.events <- e:
		s.WakeGame()
	case <-s.closed:
	}
}

// handshake is a connection in its handshake; heard: its hello came.
type handshake struct {
	conn  *protocol.Conn
	since time.Time
	heard atomic.Bool
}

// Handshaking is how many connections are in their handshake now.
func (s *Server) Handshaking() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.handshaking)
}

// takeHandshakeSlot gives hs one of the MaxHandshakes slots. When they are
// all taken, the oldest connection that has not sent its hello gives its
// slot up (it is told it was busy, and closed): connections that say
// nothing cannot keep one that speaks at once out. False when every slot's
// connection has spoken.
func (s *Server) takeHandshakeSlot(hs *handshake) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.handshaking) >= s.cfg.MaxHandshakes {
		i := slices.IndexFunc(s.handshaking, func(x *handshake) bool { return !x.heard.Load() })
		if i < 0 {
			return false
		}
		old := s.handshaking[i]
		s.handshaking = slices.Delete(s.handshaking, i, i+1)
		s.tel.evicted.Add(1)
		go s.reject(old.conn, protocol.ErrBusy, fmt.Sprintf("said nothing for %v while others waited for a handshake slot", time.Since(old.since).Round(time.Millisecond)))
	}
	// Oldest first by arrival, whichever goroutine got here first.
	i, _ := slices.BinarySearchFunc(s.handshaking, hs.since, func(x *handshake, t time.Time) int { return x.since.Compare(t) })
	s.handshaking = slices.Insert(s.handshaking, i, hs)
	return true
}

// reject refuses a connection before its handshake, with a reason.
func (s *Server) reject(conn *protocol.Conn, code, reason string) {
	_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
	_ = conn.Send(&protocol.Reject{Code: code, Reason: reason})
	_ = conn.Close()
}

// checkHello challenges the client for the token (with a back-off per
// remote host after wrong ones; the token itself never travels) and grants
// capabilities: "read" always, "edit" unless the agent is read-only or the
// client asked for capabilities without "edit".
func (s *Server) checkHello(h *protocol.Hello, host string, prove protocol.Prover) (*protocol.Welcome, *protocol.Reject) {
	if s.cfg.Token != "" {
		if !s.waitTokenBackoff(host) {
			return nil, &protocol.Reject{Code: protocol.ErrState, Reason: "the agent is closing"}
		}
		if len(h.Nonce) != protocol.NonceSize {
			s.tokenFailed(host)
			return nil, &protocol.Reject{Code: protocol.ErrToken, Reason: "this agent wants a token (--token): the hello has no nonce to prove it with"}
		}
		ok, err := prove(s.cfg.Token)
		if err != nil {
			return nil, &protocol.Reject{Code: protocol.ErrProtocol, Reason: "the token's challenge failed: " + err.Error()}
		}
		if !ok {
			s.tokenFailed(host)
			return nil, &protocol.Reject{Code: protocol.ErrToken, Reason: "the token is wrong"}
		}
		// A right token does not clear the host's back-off: a guesser on
		// the same host as the holder keeps its wait.
	}
	readOnly := s.cfg.ReadOnly || (len(h.Caps) > 0 && !slices.Contains(h.Caps, "edit"))
	caps := []string{"read"}
	if !readOnly {
		caps = append(caps, "edit")
	}
	return &protocol.Welcome{Game: s.cfg.Game, Agent: s.cfg.AgentVersion, Caps: caps, MaxFrame: uint32(s.cfg.MaxFrame), ReadOnly: readOnly}, nil
}
