package inspector

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// AgentVersion names this agent in handshakes.
const AgentVersion = "ecsinspect-agent 0.1"

// Agent serves one world to inspector clients. All socket I/O and encoding
// happen on the agent's goroutines; the world is touched only in Sync, on
// the game goroutine.
type Agent struct {
	w    *ecs.World
	opts Options
	ln   net.Listener

	inbox  chan inbound
	wake   chan struct{}
	closed chan struct{}
	wg     sync.WaitGroup
	once   sync.Once

	mu         sync.Mutex
	clients    map[*client]struct{}
	handshakes int
	nextID     int

	// The game goroutine's own state, touched only in Sync.
	paused    bool
	stepLeft  int
	lastSync  time.Time
	frameNs   int64
	schemas   []protocol.Component
	recycled  []protocol.Slot
	resFields map[string][]protocol.FieldSchema // resource schemas, converted once
	recycleAt time.Time
	live      map[*client]bool
	recorders []*Recorder

	tel telemetry
	// Logf, if set, receives the agent's notes (clients dropped, ...).
	Logf func(format string, args ...any)
}

type telemetry struct {
	bytesSent, framesSent, coalesced, dropped atomic.Uint64
	syncNs                                    atomic.Int64
	clients                                   atomic.Int64
	recording                                 atomic.Value // string
}

type inbound struct {
	c      *client
	msg    protocol.Message // nil: the client joined (joined) or is gone
	joined bool
}

// New makes an agent for w. Call Start to listen, and Sync once per frame.
func New(w *ecs.World, opts Options) *Agent {
	opts.defaults()
	if opts.JournalSize > 0 && w.Journal() == nil {
		w.EnableJournal(opts.JournalSize)
	}
	return &Agent{
		w: w, opts: opts,
		inbox:   make(chan inbound, 4096),
		wake:    make(chan struct{}, 1),
		closed:  make(chan struct{}),
		clients: map[*client]struct{}{},
		live:    map[*client]bool{},
	}
}

// Start listens on the configured address and serves clients in the
// background. It returns the listening error, if any: a refused address
// (see Options.AllowRemote) or a port in use.
func (a *Agent) Start() error {
	ln, err := a.opts.listen()
	if err != nil {
		return err
	}
	a.ln = ln
	a.wg.Add(1)
	go a.acceptLoop()
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
		a.mu.Lock()
		for c := range a.clients {
			c.drop(errors.New("agent closed"))
		}
		a.mu.Unlock()
		a.wg.Wait()
	})
	return err
}

func (a *Agent) logf(format string, args ...any) {
	if a.Logf != nil {
		a.Logf(format, args...)
	} else if debugLog {
		log.Printf("inspector: "+format, args...)
	}
}

var debugLog = false

func (a *Agent) acceptLoop() {
	defer a.wg.Done()
	for {
		nc, err := a.ln.Accept()
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
func (a *Agent) serve(nc net.Conn) {
	defer a.wg.Done()
	conn := protocol.NewConn(nc)
	conn.SetLimits(a.opts.MaxFrame, protocol.DefaultMaxFrame)
	a.mu.Lock()
	busy := len(a.clients)+a.handshakes >= a.opts.MaxClients
	if !busy {
		a.handshakes++
	}
	a.mu.Unlock()
	if busy {
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		_ = conn.Send(&protocol.Reject{Code: protocol.ErrBusy, Reason: fmt.Sprintf("the agent serves at most %d clients", a.opts.MaxClients)})
		_ = conn.Close()
		return
	}
	hello, err := protocol.ServerHandshake(conn, a.opts.HandshakeTimeout, a.checkHello)
	a.mu.Lock()
	a.handshakes--
	a.mu.Unlock()
	if err != nil {
		a.logf("handshake from %v: %v", nc.RemoteAddr(), err)
		_ = conn.Close()
		return
	}
	a.mu.Lock()
	a.nextID++
	c := newClient(a, a.nextID, conn, hello.Client)
	a.clients[c] = struct{}{}
	a.mu.Unlock()
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

func (a *Agent) checkHello(h *protocol.Hello) (*protocol.Welcome, *protocol.Reject) {
	if a.opts.Token != "" && subtle.ConstantTimeCompare([]byte(h.Token), []byte(a.opts.Token)) != 1 {
		reason := "the token is wrong"
		if h.Token == "" {
			reason = "this agent wants a token (--token)"
		}
		return nil, &protocol.Reject{Code: protocol.ErrToken, Reason: reason}
	}
	caps := []string{"read"}
	if !a.opts.ReadOnly {
		caps = append(caps, "edit")
	}
	return &protocol.Welcome{Game: a.opts.Game, Agent: AgentVersion, Caps: caps, MaxFrame: uint32(a.opts.MaxFrame), ReadOnly: a.opts.ReadOnly}, nil
}

// inbound hands a client's message (or its departure) to the game goroutine.
func (a *Agent) inbound(in inbound) {
	select {
	case a.inbox <- in:
		a.wakeSync()
	case <-a.closed:
	}
}

func (a *Agent) wakeSync() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// maxPerSync bounds the requests one Sync applies, so a flood cannot hold
// the game; the rest wait for the next frame.
const maxPerSync = 512

// Sync is the agent's turn on the game goroutine: call it once per frame,
// after the frame's systems and World.Tick, when no query iterates. It
// applies the clients' commands in arrival order, copies what due
// subscriptions ask for, and hands the copies to the clients' writers; it
// never waits on a socket. While a client has the game paused, Sync blocks,
// still applying commands and serving subscriptions, until resume or step.
func (a *Agent) Sync() {
	start := time.Now()
	if !a.lastSync.IsZero() {
		a.frameNs = start.Sub(a.lastSync).Nanoseconds()
	}
	a.lastSync = start
	a.drain()
	a.capture(start)
	for _, r := range a.recorders {
		r.capture(start)
	}
	if a.stepLeft > 0 {
		if a.stepLeft--; a.stepLeft == 0 {
			a.paused = true
			a.capture(time.Now()) // show the pause at once
		}
	}
	a.tel.syncNs.Store(time.Since(start).Nanoseconds())
	for a.paused {
		if len(a.live) == 0 {
			a.paused = false // the last client left: let the game go
			break
		}
		wait := a.nextDue(time.Now())
		timer := time.NewTimer(wait)
		select {
		case <-a.wake:
		case <-timer.C:
		case <-a.closed:
			timer.Stop()
			a.paused = false
			return
		}
		timer.Stop()
		a.drain()
		a.capture(time.Now())
	}
	a.lastSync = time.Now() // time spent paused is not frame time
}

// drain applies the requests waiting, at most maxPerSync.
func (a *Agent) drain() {
	for range maxPerSync {
		select {
		case in := <-a.inbox:
			switch {
			case in.joined:
				a.live[in.c] = true
			case in.msg == nil:
				delete(a.live, in.c)
			case a.live[in.c]:
				a.apply(in.c, in.msg)
			}
		default:
			return
		}
	}
}
