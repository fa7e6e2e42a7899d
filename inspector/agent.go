package inspector

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"log"
	"net"
	"slices"
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

	inbox   chan inbound
	wake    chan struct{}
	calls   chan func()   // Do's functions, run at the next Sync
	work    chan struct{} // the writers' slots for building and encoding (workers.go)
	waiting atomic.Int32  // writers waiting for a slot
	closed  chan struct{}
	wg      sync.WaitGroup
	once    sync.Once

	mu          sync.Mutex
	clients     map[*client]struct{}
	handshaking []*handshake // connections in their handshake, oldest first
	nextID      int
	failures    map[string]*tokenFailures // by remote host: wrong tokens

	// The game goroutine's own state, touched only in Sync.
	paused   bool
	mid      *protocol.Halt // where the game is stopped inside a frame (halt.go); nil between frames
	deferred []deferred     // requests made inside a frame, carried out at its end (halt.go)
	follow   followed       // the entities clients follow, for who changed their values (followwrites.go)
	restore  restoreMark    // the last rewind's writes, to tell a value restored from one written since (rewind.go)
	edited   bool           // a client's edit was applied since the watchpoints last looked
	watches  watchState     // the watchpoints (watch.go)
	stepLeft int
	// held: the pause outlives the clients (a Pause, Step or Rewind with
	// hold); alone is when the last client left a held pause.
	held      bool
	alone     time.Time
	lastStart time.Time     // when the previous Sync started
	pausedFor time.Duration // how long the previous Sync held the game paused
	frameNs   int64
	// lastFrameTick is the change tick at the previous Sync: what a one-off
	// query's changed() and added() compare with ("during the last frame").
	lastFrameTick, frameTick uint32
	schemas                  []protocol.Component
	recycled                 []protocol.Slot
	resFields                map[string][]protocol.FieldSchema // resource schemas, converted once
	live                     map[*client]bool
	turn                     []*client // live clients in join order: whose requests Sync takes
	recorders                []*Recorder
	feeds                    []*worldFeed // world subscriptions' streams, one per rate (worldfeed.go)
	ring                     *Recorder    // the in-memory recording a Rewind restores from (rewind.go)
	ringMem                  *memRing
	rewinding                bool        // a Rewind is being rebuilt
	snap                     *sharedCopy // the newest world copy, shared by snapshot requests for a second

	tel telemetry
	// Logf, if set, receives the agent's notes (clients dropped, ...).
	Logf func(format string, args ...any)
}

type telemetry struct {
	bytesSent, framesSent, coalesced, dropped, tooLarge atomic.Uint64
	snapshots                                           atomic.Uint64 // world copies for SnapshotRequests
	evicted                                             atomic.Uint64 // silent connections closed to give their handshake slot to another
	syncNs                                              atomic.Int64
	clients                                             atomic.Int64
	recording                                           atomic.Value // string

	mu        sync.Mutex
	droppedBy map[string]uint64
}

// countDrop counts a client the agent dropped, by the code it was sent.
func (t *telemetry) countDrop(code string) {
	if code == codeGone {
		return
	}
	t.dropped.Add(1)
	t.mu.Lock()
	if t.droppedBy == nil {
		t.droppedBy = map[string]uint64{}
	}
	t.droppedBy[code]++
	t.mu.Unlock()
}

// dropCounts copies the drops by code.
func (t *telemetry) dropCounts() map[string]uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.droppedBy) == 0 {
		return nil
	}
	out := make(map[string]uint64, len(t.droppedBy))
	for k, v := range t.droppedBy {
		out[k] = v
	}
	return out
}

// inbound tells the game goroutine that a client joined or left.
type inbound struct {
	c      *client
	joined bool // false: the client is gone
}

// New makes an agent for w. Call Start to listen, and Sync once per frame.
func New(w *ecs.World, opts Options) *Agent {
	opts.defaults()
	if opts.JournalSize > 0 && w.Inspect().Journal() == nil {
		w.Inspect().EnableJournal(opts.JournalSize)
	}
	w.Inspect().EnableStaleAudit(true) // the summary reports who uses dead handles
	a := &Agent{
		w: w, opts: opts,
		inbox:    make(chan inbound, 4096),
		calls:    make(chan func(), 64),
		work:     make(chan struct{}, workSlots()),
		wake:     make(chan struct{}, 1),
		closed:   make(chan struct{}),
		clients:  map[*client]struct{}{},
		live:     map[*client]bool{},
		failures: map[string]*tokenFailures{},
	}
	if s := opts.Schedule; s != nil {
		// Value watchpoints look at each system's writes as it ends: the
		// hit names the system that made the value, and sees it before a
		// despawn queued on it takes the entity away.
		prev, prevStart := s.SystemEnd, s.RunStart
		s.SystemEnd = func(w *ecs.World, run ecs.SystemRun) {
			if prev != nil {
				prev(w, run)
			}
			a.checkSystem(run)
			a.look(run.Writes)
		}
		s.RunStart = func(w *ecs.World) {
			if prevStart != nil {
				prevStart(w)
			}
			a.checkBeforeRun()
			a.look(nil)
		}
		prevStage := s.StageEnd
		s.StageEnd = func(w *ecs.World, stage string) {
			if prevStage != nil {
				prevStage(w, stage)
			}
			a.look(nil) // the stage's commands
		}
		prevHalted := s.Halted
		s.Halted = func(w *ecs.World, at ecs.Halt) {
			if prevHalted != nil {
				prevHalted(w, at)
			}
			a.haltMidFrame(at)
		}
	}
	return a
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
			c.drop(protocol.ErrState, "the agent is closing")
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
		a.mu.Lock()
		defer a.mu.Unlock()
		if len(a.clients) >= a.opts.MaxClients {
			return nil, &protocol.Reject{Code: protocol.ErrBusy, Reason: fmt.Sprintf("the agent serves at most %d clients", a.opts.MaxClients)}
		}
		a.nextID++
		c = newClient(a, a.nextID, conn, h.Client, welcome.ReadOnly)
		a.clients[c] = struct{}{}
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

// inbound hands a client's arrival or departure to the game goroutine.
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

// Do runs f on the game goroutine at the next Sync, where the world may be
// touched (start a recording, take a snapshot) from another goroutine's
// code. It blocks only if 64 calls are already waiting.
func (a *Agent) Do(f func()) {
	a.calls <- f
	a.wakeSync()
}

// maxPerSync bounds the requests one Sync applies, whatever their cost.
const maxPerSync = 512

// Sync is the agent's turn on the game goroutine: call it once per frame,
// after the frame's systems and World.Tick, when no query iterates. It
// applies the clients' commands in arrival order, copies what due
// subscriptions ask for, and hands the copies to the clients' writers; it
// never waits on a socket. While a client has the game paused, Sync blocks,
// still applying commands and serving subscriptions, until resume or step.
func (a *Agent) Sync() {
	start := time.Now()
	if !a.lastStart.IsZero() {
		// Start to start, less the time the game was held paused: the
		// frame's systems and the agent's own share of it.
		a.frameNs = (start.Sub(a.lastStart) - a.pausedFor).Nanoseconds()
	}
	a.lastStart, a.pausedFor = start, 0
	a.lastFrameTick, a.frameTick = a.frameTick, a.w.Inspect().NextChangeTick()
	if a.stepLeft > 0 { // a frame of a step ran: counted before this Sync's commands set a new step
		if a.stepLeft--; a.stepLeft == 0 {
			a.paused = true
		}
	}
	if a.checkWatches() { // a watchpoint fired: the game stops at the end of this frame
		a.paused, a.stepLeft = true, 0
	}
	a.runCalls()
	a.applyDeferred()
	a.drain(time.Now()) // the requests' budget is their own: watchpoints took theirs
	a.look(nil)         // the clients' edits
	a.followDetails()
	if a.checkEdits() { // an edit made a watchpoint that pauses true: stop here
		a.paused, a.stepLeft = true, 0
	}
	a.capture(start)
	switch {
	case a.ring != nil:
		a.ring.capture(start)
	case a.opts.RewindBytes > 0:
		a.startRing(nil, 0)
	}
	for _, r := range a.recorders {
		r.capture(start)
	}
	a.captureFeeds(start, false)
	a.tel.syncNs.Store(time.Since(start).Nanoseconds())
	if !a.paused {
		return
	}
	pausedAt := time.Now()
	a.hold()
	a.pausedFor = time.Since(pausedAt)
}

// hold serves clients while the game is paused, between frames or inside
// one (a.mid), until a resume or a step lets it go, the last client
// leaves, or the agent closes.
func (a *Agent) hold() {
	for a.paused {
		if a.releaseAlone(time.Now()) {
			break
		}
		wait := a.nextDue(time.Now())
		if len(a.live) == 0 && a.opts.HoldTimeout > 0 {
			wait = min(wait, max(time.Until(a.alone.Add(a.opts.HoldTimeout)), time.Millisecond))
		}
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
		now := time.Now()
		if a.mid == nil { // Do's functions and the streams' frames wait for the frame's end
			a.runCalls()
		}
		a.drain(now)
		a.look(nil)
		a.followDetails()
		if a.checkEdits() {
			a.paused, a.stepLeft = true, 0
		}
		a.capture(now)
		if a.mid == nil {
			a.captureFeeds(now, true)
			for _, r := range a.recorders {
				if r.owed() {
					r.capture(now)
				}
			}
		}
	}
}

// runCalls runs the functions Do queued, and the agent's own (a rewind's
// restore).
func (a *Agent) runCalls() {
	for len(a.calls) > 0 {
		(<-a.calls)()
	}
}

// drain applies joins and leaves, then the clients' waiting requests in
// turns of one request per client, until requestBudget is spent or
// maxPerSync applied; the rest wait for the next frame. A client whose
// copy job is still being built waits with its next query or snapshot.
func (a *Agent) drain(start time.Time) {
	for {
		select {
		case in := <-a.inbox:
			switch {
			case in.joined:
				a.live[in.c] = true
				a.turn = append(a.turn, in.c)
			default:
				delete(a.live, in.c)
				a.turn = slices.DeleteFunc(a.turn, func(c *client) bool { return c == in.c })
				a.forgetClientWatches(in.c)
				for id := range in.c.subs {
					a.unsubscribe(in.c, id)
				}
			}
			continue
		default:
		}
		break
	}
	applied := 0
	for progress := true; progress; {
		progress = false
		for _, c := range a.turn {
			if applied >= maxPerSync || time.Since(start) > requestBudget {
				return
			}
			if heavyRequest(c.peekRequest()) && c.busyHeavy() {
				continue
			}
			m := c.nextRequest()
			if m == nil {
				continue
			}
			a.apply(c, m)
			applied++
			progress = true
		}
	}
}
