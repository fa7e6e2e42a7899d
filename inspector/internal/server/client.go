package server

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Client is one connected client. Its request queue and outbox are
// shared by its reader and writer goroutines and the game goroutine, under
// mu; what the game half keeps of it (subscriptions, watchpoints) is the
// game half's.
type Client struct {
	s        *Server
	id       int
	name     string
	conn     session
	readOnly bool // the session asked for no edits, or the agent allows none
	// actor is the name it writes under, fixed at its first write.
	actor     string
	actorOnce sync.Once
	// recentWork is the writer's building and encoding lately, in ns,
	// decaying since workAt (workers.go); only the writer touches them.
	recentWork float64
	workAt     time.Time

	mu       sync.Mutex
	requests []protocol.Message      // read, waiting for Sync, in order
	out      []outMsg                // replies and jobs, in order
	frames   map[uint32]answer.Frame // newest frame per subscription
	order    []uint32                // subscriptions with a frame waiting, oldest first
	queued   int64                   // estimated bytes of out and frames
	inflight int                     // requests read and not yet answered
	heavy    int                     // copy jobs queued or running (at most one)
	room     chan struct{}           // signalled when inflight drops
	signal   chan struct{}           // wakes the writer
	done     chan struct{}           // closed when the client is dropped
	once     sync.Once
	code     string // why the client was dropped (an error code), once dropped
	reason   string
}

// outMsg is a message on its way to the writer: a ready message, or a
// build func run on the writer goroutine (conversion off the game goroutine).
type outMsg struct {
	msg     protocol.Message
	build   func() protocol.Message
	size    int64 // estimated bytes, counted in queued
	answers bool  // answers a request: frees an in-flight slot once sent
	heavy   bool  // a copy job: frees the client's heavy slot once built
}

func newClient(s *Server, id int, conn session, name string, readOnly bool) *Client {
	return &Client{s: s, id: id, name: name, conn: conn, readOnly: readOnly,
		frames: map[uint32]answer.Frame{}, room: make(chan struct{}, 1), signal: make(chan struct{}, 1), done: make(chan struct{})}
}

func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// enqueue queues m for the writer; a client whose queue passes
// MaxQueuedBytes is dropped. It never blocks.
func (c *Client) enqueue(m outMsg) {
	c.mu.Lock()
	if c.code != "" {
		c.mu.Unlock()
		return
	}
	c.out = append(c.out, m)
	c.queued += m.size
	over := c.queued > c.s.cfg.MaxQueuedBytes
	c.mu.Unlock()
	if over {
		c.Drop(protocol.ErrOverload, "more than "+protocol.ByteSize(c.s.cfg.MaxQueuedBytes)+" of replies wait unread: the client does not read what it asks for")
		return
	}
	wake(c.signal)
}

// Answer queues the answer to a request.
func (c *Client) Answer(m protocol.Message) {
	c.enqueue(outMsg{msg: m, size: answer.EstimateSize(m), answers: true})
}

// Notify queues a message that answers no request (journal entries).
func (c *Client) Notify(m protocol.Message) { c.enqueue(outMsg{msg: m, size: answer.EstimateSize(m)}) }

// NotifyBuild is Notify of a message built on the writer goroutine (size:
// its bytes at most); build may find nothing to send and return nil.
func (c *Client) NotifyBuild(size int64, build func() protocol.Message) {
	c.enqueue(outMsg{build: build, size: size})
}

// Job queues the answer to a request, built on the writer goroutine. A heavy
// job holds the client's one heavy slot until it is built.
func (c *Client) Job(size int64, heavy bool, build func() protocol.Message) {
	if heavy {
		c.mu.Lock()
		c.heavy++
		c.mu.Unlock()
	}
	c.enqueue(outMsg{build: build, size: size, answers: true, heavy: heavy})
}

// BusyHeavy reports whether a copy job of the client's is still queued or
// running: its next query waits, so one client holds at most one copy.
func (c *Client) BusyHeavy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.heavy > 0
}

// Frame queues a subscription frame; a frame not yet sent is replaced
// (newest wins), so a slow client costs one frame per subscription.
func (c *Client) Frame(sub uint32, f answer.Frame) {
	c.mu.Lock()
	if c.code != "" {
		c.mu.Unlock()
		return
	}
	if old, waiting := c.frames[sub]; waiting {
		f.Reset = f.Reset || old.Reset
		c.queued -= old.Size
		if old.Heavy {
			c.heavy--
		}
		c.s.tel.coalesced.Add(1)
	} else {
		c.order = append(c.order, sub)
	}
	if f.Heavy {
		c.heavy++
	}
	c.frames[sub] = f
	c.queued += f.Size
	c.mu.Unlock()
	wake(c.signal)
}

// Pending reports whether a frame of sub waits unsent: the client is behind,
// and capturing another would only replace it.
func (c *Client) Pending(sub uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, waiting := c.frames[sub]
	return waiting
}

// NextRequest takes the client's oldest waiting request, for Sync.
func (c *Client) NextRequest() protocol.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.requests) == 0 {
		return nil
	}
	m := c.requests[0]
	c.requests[0] = nil
	c.requests = c.requests[1:]
	return m
}

// PeekRequest is the oldest waiting request, left in place.
func (c *Client) PeekRequest() protocol.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.requests) == 0 {
		return nil
	}
	return c.requests[0]
}

// Drop disconnects the client, once, telling it why (code and reason) if
// its socket takes the notice within a moment. The writer goroutine sends
// the notice and closes the connection.
func (c *Client) Drop(code, reason string) {
	c.once.Do(func() {
		c.mu.Lock()
		c.code, c.reason = code, reason
		c.out, c.frames, c.order, c.queued = nil, nil, nil, 0
		c.mu.Unlock()
		// A writer blocked on a stuck socket gives up now.
		_ = c.conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		close(c.done)
		c.s.tel.countDrop(code)
		c.s.Logf("client %d (%s) dropped (%s): %s", c.id, c.name, code, reason)
	})
}

// writeLoop sends what is queued: replies and jobs in order, then frames,
// deltas where the client has the previous full frame. When the client is
// dropped it sends the reason (a Reject) if it can, and closes.
func (c *Client) writeLoop() {
	defer c.closeWithNotice()
	last := map[uint32]protocol.Message{} // last full frame sent, per subscription
	for {
		select {
		case <-c.done:
			return
		case <-c.signal:
		}
		for {
			c.mu.Lock()
			out, order := c.out, c.order
			frames := make([]answer.Frame, 0, len(order))
			for _, sub := range order {
				frames = append(frames, c.frames[sub])
				delete(c.frames, sub)
			}
			c.out, c.order = nil, nil
			c.mu.Unlock()
			if len(out)+len(frames) == 0 {
				break
			}
			for _, o := range out {
				var b []byte
				worked := c.working(o.heavy, o.size, func() {
					m := o.msg
					if o.build != nil {
						m = o.build()
					}
					if m != nil { // a notice built to nothing sends nothing
						b = c.encode(m)
					}
				})
				if o.heavy {
					c.release(0, 0, 1)
				}
				ok := worked && (b == nil || c.write(b))
				c.release(o.size, boolInt(o.answers), 0)
				if !ok {
					return
				}
			}
			for i, f := range frames {
				var b []byte
				worked := c.working(f.Heavy, f.Size, func() {
					m := f.Message()
					sub := order[i]
					full := m
					if prev, ok := last[sub]; ok && !f.Reset {
						m = delta(prev, m)
					}
					last[sub] = full
					b = c.encode(m)
				})
				if f.Heavy {
					c.release(0, 0, 1)
				}
				ok := worked && c.write(b)
				c.release(f.Size, 0, 0)
				if !ok {
					return
				}
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// release returns bytes, in-flight slots and heavy slots once the writer is
// done with them.
func (c *Client) release(size int64, answered, heavy int) {
	c.mu.Lock()
	c.queued -= size
	c.inflight -= answered
	c.heavy -= heavy
	c.mu.Unlock()
	if answered > 0 {
		wake(c.room)
	}
	if heavy > 0 {
		c.s.WakeGame() // a paused game's Sync may be waiting to take this client's next query
	}
}

// closeWithNotice ends the connection, first telling a dropped client why.
func (c *Client) closeWithNotice() {
	c.mu.Lock()
	code, reason := c.code, c.reason
	c.mu.Unlock()
	if code != "" && code != codeGone {
		_ = c.conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		_ = c.conn.Send(&protocol.Reject{Code: code, Reason: reason})
	}
	_ = c.conn.Close()
}

// codeGone marks a client that left (or whose socket failed): nobody to tell.
const codeGone = "gone"

// delta turns a full frame into a delta against the previous one, for the
// kinds that have deltas.
func delta(prev, next protocol.Message) protocol.Message {
	switch n := next.(type) {
	case *protocol.Summary:
		if p, ok := prev.(*protocol.Summary); ok {
			return protocol.DiffSummary(p, n)
		}
	case *protocol.Page:
		if p, ok := prev.(*protocol.Page); ok {
			return protocol.DiffPage(p, n)
		}
	}
	return next
}

// encode encodes m for this client: an error, or an answer over the
// client's frame limit, becomes a Reply saying so.
func (c *Client) encode(m protocol.Message) []byte {
	b, err := protocol.Encode(m)
	if err != nil {
		c.s.Logf("client %d: encode %T: %v", c.id, m, err)
		b, _ = protocol.Encode(&protocol.Reply{ID: requestIDOf(m), Code: protocol.ErrInternal, Message: "the agent could not encode its answer"})
	}
	if max := c.conn.MaxWrite(); len(b) > max {
		c.s.tel.tooLarge.Add(1)
		size, limit := len(b), max
		if c.conn.Sealed() { // as the client counts: sealed frames
			size, limit = size+protocol.SealOverhead, limit+protocol.SealOverhead
		}
		b, _ = protocol.Encode(&protocol.Reply{ID: requestIDOf(m), Code: protocol.ErrTooLarge,
			Message: "the answer is " + protocol.ByteSize(size) + ", over this client's frame limit of " + protocol.ByteSize(limit) + ": ask for fewer rows"})
	}
	return b
}

// write sends an encoded message, dropping the client if its socket fails
// or takes nothing for the stuck timeout.
func (c *Client) write(b []byte) bool {
	_ = c.conn.SetWriteDeadline(time.Now().Add(c.s.cfg.StuckTimeout))
	if err := c.conn.SendEncoded(b); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			c.Drop(protocol.ErrTimeout, "the client took nothing for "+c.s.cfg.StuckTimeout.String())
		} else {
			c.Drop(codeGone, err.Error())
		}
		return false
	}
	c.s.tel.bytesSent.Add(uint64(len(b) + 4))
	c.s.tel.framesSent.Add(1)
	return true
}

// requestIDOf is the request id an answer carries, for an error in its place.
func requestIDOf(m protocol.Message) uint32 {
	if a, ok := m.(protocol.Answer); ok {
		return a.AnswerTo()
	}
	return 0
}

// readLoop passes the client's requests to the game goroutine, in order.
// Requests that break the protocol or the documented limits are answered
// here and never reach the game. With MaxInFlight requests unanswered it
// stops reading, so a client that never reads its replies only stalls
// itself.
func (c *Client) readLoop() {
	defer c.s.event(Event{Client: c}) // tells Sync the client is gone
	for {
		if !c.waitForRoom() {
			return
		}
		req, err := c.conn.ReceiveRequest()
		if err != nil {
			var me *protocol.MessageError
			if errors.As(err, &me) { // not a request, or not a message: answered with the id it carried
				c.refuse(me.ID, protocol.ErrProtocol, err.Error())
				continue
			}
			c.dropForRead(err)
			return
		}
		m := protocol.Message(req)
		if rerr := checkRequest(m, c.readOnly); rerr != nil {
			c.refuse(req.RequestID(), rerr.Code, rerr.Msg)
			continue
		}
		c.mu.Lock()
		c.requests = append(c.requests, m)
		c.inflight++
		c.mu.Unlock()
		c.s.WakeGame()
	}
}

// refuse answers a request the reader refused, counting it in flight so a
// flood of bad requests is held back like good ones.
func (c *Client) refuse(id uint32, code, msg string) {
	c.mu.Lock()
	c.inflight++
	c.mu.Unlock()
	c.Answer(&protocol.Reply{ID: id, Code: code, Message: msg})
}

// waitForRoom blocks while the client has MaxInFlight requests unanswered.
func (c *Client) waitForRoom() bool {
	for {
		c.mu.Lock()
		full := c.inflight >= protocol.MaxInFlight
		c.mu.Unlock()
		if !full {
			return true
		}
		select {
		case <-c.room:
		case <-c.done:
			return false
		case <-c.s.closed:
			return false
		}
	}
}

// dropForRead drops the client for a read that failed, with the reason it
// gets to see.
func (c *Client) dropForRead(err error) {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		c.Drop(codeGone, "the client closed the connection")
	case errors.Is(err, protocol.ErrPeerSilent):
		c.Drop(protocol.ErrTimeout, err.Error())
	case errors.As(err, &ne) && ne.Timeout():
		c.Drop(protocol.ErrTimeout, "a frame stalled half-sent for "+c.s.cfg.FrameTimeout.String())
	case errors.Is(err, protocol.ErrFrameTooLarge):
		c.Drop(protocol.ErrTooLarge, err.Error())
	case errors.Is(err, protocol.ErrSealBroken):
		c.Drop(protocol.ErrForged, err.Error())
	default:
		c.Drop(protocol.ErrProtocol, err.Error())
	}
}

// ID is the client's number, counted from 1 in the order clients were
// admitted.
func (c *Client) ID() int { return c.id }

// Name is what the client called itself in its hello.
func (c *Client) Name() string { return c.name }

// ReadOnly reports whether the session may change nothing.
func (c *Client) ReadOnly() bool { return c.readOnly }

// Actor names the client in the world's journal: "client 3 (ecsinspect
// 0.1)", or a folded name once many clients have written (writers.go).
// The first call fixes it.
func (c *Client) Actor() string {
	c.actorOnce.Do(func() { c.actor = c.s.writers.name(c.id, c.name) })
	return c.actor
}

// Backlog is the bytes waiting to be sent to the client.
func (c *Client) Backlog() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queued
}

// MaxWrite is the largest frame the client's session takes, in bytes.
func (c *Client) MaxWrite() int { return c.conn.MaxWrite() }

// HeavyJobs is how many copy jobs of the client's are queued or running.
func (c *Client) HeavyJobs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.heavy
}
