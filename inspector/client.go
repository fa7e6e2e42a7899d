package inspector

import (
	"errors"
	"sync"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// maxQueuedReplies bounds what waits for a client that does not read:
// replies cannot be coalesced, so past this the client is dropped.
const maxQueuedReplies = 1024

// client is one connected client. Its subscriptions belong to the game
// goroutine (Sync); its outbox is shared with its writer goroutine.
type client struct {
	a    *Agent
	id   int
	name string
	conn *protocol.Conn
	subs map[uint32]*subscription // game goroutine only

	mu      sync.Mutex
	replies []protocol.Message
	frames  map[uint32]outFrame // newest frame per subscription
	order   []uint32            // subscriptions with a frame waiting, oldest first
	jobs    []func() protocol.Message
	signal  chan struct{}
	done    chan struct{}
	once    sync.Once
	dropped bool
}

// outFrame is a captured frame on its way to the writer.
type outFrame struct {
	msg   protocol.Message
	reset bool // send it full: the subscription was (re)started
}

func newClient(a *Agent, id int, conn *protocol.Conn, name string) *client {
	return &client{a: a, id: id, name: name, conn: conn, subs: map[uint32]*subscription{},
		frames: map[uint32]outFrame{}, signal: make(chan struct{}, 1), done: make(chan struct{})}
}

func (c *client) wake() {
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// reply queues a message that must arrive (a reply, a one-off answer). It
// never blocks; a client that lets too many pile up is dropped.
func (c *client) reply(m protocol.Message) {
	c.mu.Lock()
	if len(c.replies) >= maxQueuedReplies {
		c.mu.Unlock()
		c.drop(errors.New("too many replies waiting: the client does not read"))
		return
	}
	c.replies = append(c.replies, m)
	c.mu.Unlock()
	c.wake()
}

// job queues work to run on the writer goroutine that yields a message to
// send (a snapshot converted there, off the game goroutine).
func (c *client) job(fn func() protocol.Message) {
	c.mu.Lock()
	c.jobs = append(c.jobs, fn)
	c.mu.Unlock()
	c.wake()
}

// frame queues a subscription frame; a frame not yet sent is replaced
// (newest wins), so a slow client costs one frame per subscription.
func (c *client) frame(sub uint32, f outFrame) {
	c.mu.Lock()
	if old, waiting := c.frames[sub]; waiting {
		f.reset = f.reset || old.reset
		c.a.tel.coalesced.Add(1)
	} else {
		c.order = append(c.order, sub)
	}
	c.frames[sub] = f
	c.mu.Unlock()
	c.wake()
}

// pending reports whether a frame of sub waits unsent: the client is behind,
// and capturing another would only replace it.
func (c *client) pending(sub uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, waiting := c.frames[sub]
	return waiting
}

// drop disconnects the client, once.
func (c *client) drop(reason error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.dropped = true
		c.mu.Unlock()
		_ = c.conn.Close()
		close(c.done)
		c.a.logf("client %d (%s) dropped: %v", c.id, c.name, reason)
	})
}

// writeLoop sends what is queued: replies first, then frames, deltas where
// the client has the previous full frame.
func (c *client) writeLoop() {
	last := map[uint32]protocol.Message{} // last full frame sent, per subscription
	for {
		select {
		case <-c.done:
			return
		case <-c.signal:
		}
		for {
			c.mu.Lock()
			replies, jobs, order := c.replies, c.jobs, c.order
			frames := make([]outFrame, 0, len(order))
			for _, sub := range order {
				frames = append(frames, c.frames[sub])
				delete(c.frames, sub)
			}
			c.replies, c.jobs, c.order = nil, nil, nil
			c.mu.Unlock()
			if len(replies)+len(jobs)+len(frames) == 0 {
				break
			}
			for _, fn := range jobs {
				replies = append(replies, fn())
			}
			for _, m := range replies {
				if !c.send(m) {
					return
				}
			}
			for i, f := range frames {
				m := f.msg
				sub := order[i]
				if prev, ok := last[sub]; ok && !f.reset {
					m = delta(prev, f.msg)
				}
				last[sub] = f.msg
				if !c.send(m) {
					return
				}
			}
		}
	}
}

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

// send writes one message, giving up (and dropping the client) if the
// socket takes nothing for StuckTimeout.
func (c *client) send(m protocol.Message) bool {
	b, err := protocol.Encode(m)
	if err != nil {
		c.a.logf("client %d: encode %T: %v", c.id, m, err)
		return true
	}
	_ = c.conn.SetWriteDeadline(time.Now().Add(c.a.opts.StuckTimeout))
	if err := c.conn.SendEncoded(b); err != nil {
		c.a.tel.dropped.Add(1)
		c.drop(err)
		return false
	}
	c.a.tel.bytesSent.Add(uint64(len(b) + 4))
	c.a.tel.framesSent.Add(1)
	return true
}

// readLoop passes the client's requests to the game goroutine, in order.
func (c *client) readLoop() {
	defer c.a.inbound(inbound{c: c}) // tells Sync the client is gone
	for {
		m, err := c.conn.Receive()
		if err != nil {
			c.drop(err)
			return
		}
		if _, ok := m.(protocol.Request); !ok {
			c.reply(&protocol.Reply{Code: protocol.ErrProtocol, Message: "unexpected message after the handshake"})
			continue
		}
		select {
		case c.a.inbox <- inbound{c: c, msg: m}:
			c.a.wakeSync()
		case <-c.done:
			return
		case <-c.a.closed:
			return
		}
	}
}
