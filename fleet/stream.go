package fleet

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// A session is a byte stream over two subjects: what one side writes it
// publishes on its out subject, in messages of at most the broker's payload
// limit, each numbered in the header SeqHeader (1, 2, ...); what it reads
// comes from its in subject in that order. The bytes are exactly those a
// socket carries (PROTOCOL.md's length-prefixed frames), so the agent's
// handshake, tokens, limits and budgets hold unchanged. A gap in the
// numbers (the broker dropped a message: a slow consumer, a restart) or a
// message out of order (a forger on the subject) ends the session with an
// error, never a corrupt stream. Each side sends a ping (an empty message
// with OpHeader "ping") every Timing.Ping and ends a session it heard
// nothing on for Timing.Idle; "close" (with ReasonHeader) ends it at once.

// Header names of session messages.
const (
	SeqHeader    = "Ecs-Seq"
	OpHeader     = "Ecs-Op"
	ReasonHeader = "Ecs-Reason"
)

// Timing is how a session notices a peer that vanished without a word:
// each side pings every Ping, and ends a session it heard nothing on for
// Idle. Zero fields take the defaults.
type Timing struct{ Ping, Idle time.Duration }

// The default session timing.
const (
	DefaultPing = 2 * time.Second
	DefaultIdle = 6 * time.Second
)

// orDefaults is t with its zero fields set to the defaults.
func (t Timing) orDefaults() Timing {
	if t.Ping <= 0 {
		t.Ping = DefaultPing
	}
	if t.Idle <= 0 {
		t.Idle = DefaultIdle
	}
	return t
}

// Bytes received and not yet read: past a bound the reader is too slow
// (or the writer hostile: a broker gives no back-pressure as TCP does) and
// the session ends. A client reads big world frames as they come
// (maxBuffered); an instance reads small requests, and all its sessions
// together hold at most instanceBuffered (a session at most
// sessionBuffered), so clients that write without end cannot bloat the
// game.
const (
	maxBuffered      = 256 << 20
	sessionBuffered  = 4 << 20
	instanceBuffered = 64 << 20
)

// budget is bytes held unread, shared by an instance's sessions.
type budget struct {
	held  atomic.Int64
	limit int64
}

// streamConn is one side of a session, a net.Conn.
type streamConn struct {
	nc            *nats.Conn
	out           string
	local, remote Addr
	chunk         int
	readDL        *deadline
	closed        chan struct{}
	closeOnce     sync.Once
	onClose       func()
	ping, idle    time.Duration // its Timing
	limit         int           // bytes held unread at most
	shared        *budget       // the instance's, for its sessions; nil for a client

	wmu     sync.Mutex // one writer at a time: numbers in order
	nextOut uint64

	mu        sync.Mutex
	inbox     [][]byte
	head      []byte
	buffered  int
	nextIn    uint64
	err       error // why reads end, once the inbox is read
	arrived   chan struct{}
	lastHeard time.Time
}

// Addr is a session's end, as net.Addr: network "nats".
type Addr string

// Network implements net.Addr.
func (Addr) Network() string { return "nats" }

// String implements net.Addr.
func (a Addr) String() string { return string(a) }

func newStreamConn(nc *nats.Conn, out string, local, remote Addr, timing Timing) *streamConn {
	timing = timing.orDefaults()
	chunk := int(nc.MaxPayload()) - 512
	if chunk < 4<<10 {
		chunk = 4 << 10
	}
	c := &streamConn{nc: nc, out: out, local: local, remote: remote, chunk: chunk, readDL: newDeadline(),
		closed: make(chan struct{}), nextOut: 1, nextIn: 1, arrived: make(chan struct{}, 1), lastHeard: time.Now(),
		ping: timing.Ping, idle: timing.Idle, limit: maxBuffered}
	go c.keepAlive()
	return c
}

// deliver takes a message from the in subject; it never blocks.
func (c *streamConn) deliver(m *nats.Msg) {
	seq, err := strconv.ParseUint(m.Header.Get(SeqHeader), 10, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.lastHeard = time.Now()
	switch {
	case err != nil:
		c.failLocked(errors.New("fleet: a session message without its number: not from the peer"))
		return
	case seq != c.nextIn:
		c.failLocked(fmt.Errorf("fleet: session message %d came where %d was due: the broker lost messages (a restart, or a reader too slow) or another publisher wrote on the session's subject", seq, c.nextIn))
		return
	}
	c.nextIn++
	switch m.Header.Get(OpHeader) {
	case "ping":
		return
	case "close":
		reason := m.Header.Get(ReasonHeader)
		if reason == "" {
			reason = "closed by the peer"
		}
		c.err = &closedError{reason: reason}
		wake(c.arrived)
		return
	case "":
	default:
		c.failLocked(fmt.Errorf("fleet: unknown session op %q", m.Header.Get(OpHeader)))
		return
	}
	if len(m.Data) == 0 {
		return
	}
	if c.buffered+len(m.Data) > c.limit {
		c.failLocked(fmt.Errorf("fleet: more than %s arrived unread: the reader is too slow, or the writer sends without end", mib(c.limit)))
		return
	}
	if s := c.shared; s != nil {
		if s.held.Add(int64(len(m.Data))) > s.limit {
			s.held.Add(-int64(len(m.Data)))
			c.failLocked(fmt.Errorf("fleet: the instance's sessions hold more than %s unread: this one, the last to write, ends", mib(int(s.limit))))
			return
		}
	}
	c.inbox = append(c.inbox, m.Data)
	c.buffered += len(m.Data)
	wake(c.arrived)
}

// closedError is a session the peer closed: reads end with io.EOF's
// meaning and the peer's reason.
type closedError struct{ reason string }

func (e *closedError) Error() string        { return "fleet: session closed: " + e.reason }
func (e *closedError) Is(target error) bool { return target == io.EOF }

// lose ends reads with err: the broker connection under the session is
// gone, so messages were lost.
func (c *streamConn) lose(err error) {
	c.mu.Lock()
	c.failLocked(err)
	c.mu.Unlock()
}

func (c *streamConn) failLocked(err error) {
	if c.err == nil {
		c.err = err
	}
	wake(c.arrived)
}

// release drops what was received and not read, giving its bytes back to
// the instance, when the session closes; c.mu is held.
func (c *streamConn) release() {
	if c.shared != nil {
		c.shared.held.Add(-int64(c.buffered))
	}
	c.inbox, c.head, c.buffered = nil, nil, 0
}

func mib(n int) string { return strconv.Itoa(n>>20) + " MiB" }

func wake(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Read implements net.Conn.
func (c *streamConn) Read(p []byte) (int, error) {
	for {
		c.mu.Lock()
		if len(c.head) == 0 && len(c.inbox) > 0 {
			c.head, c.inbox[0] = c.inbox[0], nil
			c.inbox = c.inbox[1:]
		}
		if len(c.head) > 0 {
			n := copy(p, c.head)
			c.head = c.head[n:]
			c.buffered -= n
			if c.shared != nil {
				c.shared.held.Add(-int64(n))
			}
			c.mu.Unlock()
			return n, nil
		}
		err := c.err
		c.mu.Unlock()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			return 0, err
		}
		select {
		case <-c.arrived:
		case <-c.closed:
			return 0, net.ErrClosed
		case <-c.readDL.wait():
			return 0, os.ErrDeadlineExceeded
		}
	}
}

// Write implements net.Conn: the bytes go out in numbered messages. The
// broker's client buffers them; it never waits for the peer.
func (c *streamConn) Write(p []byte) (int, error) {
	select {
	case <-c.closed:
		return 0, net.ErrClosed
	default:
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	sent := 0
	for sent < len(p) {
		n := min(c.chunk, len(p)-sent)
		if err := c.publishLocked(p[sent:sent+n], ""); err != nil {
			return sent, err
		}
		sent += n
	}
	return sent, nil
}

// publishLocked sends one numbered message; wmu is held.
func (c *streamConn) publishLocked(data []byte, op string, kv ...string) error {
	m := nats.NewMsg(c.out)
	m.Header.Set(SeqHeader, strconv.FormatUint(c.nextOut, 10))
	if op != "" {
		m.Header.Set(OpHeader, op)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Header.Set(kv[i], kv[i+1])
	}
	m.Data = data
	if err := c.nc.PublishMsg(m); err != nil {
		return fmt.Errorf("fleet: send on the broker: %w", err)
	}
	c.nextOut++
	return nil
}

// keepAlive pings the peer and ends a session the peer went silent on.
func (c *streamConn) keepAlive() {
	t := time.NewTicker(c.ping)
	defer t.Stop()
	for {
		select {
		case <-c.closed:
			return
		case <-t.C:
		}
		c.wmu.Lock()
		_ = c.publishLocked(nil, "ping") // a broker that is down: the silence below ends it
		c.wmu.Unlock()
		c.mu.Lock()
		if silent := time.Since(c.lastHeard); silent > c.idle {
			c.failLocked(fmt.Errorf("fleet: %w for %v: it is gone, or the broker is", protocol.ErrPeerSilent, silent.Round(time.Second)))
		}
		c.mu.Unlock()
	}
}

// Close implements net.Conn: the peer is told (best effort).
func (c *streamConn) Close() error { return c.closeWith("closed") }

// closeWith closes the session, telling the peer why.
func (c *streamConn) closeWith(reason string) error {
	first := false
	c.closeOnce.Do(func() {
		first = true
		c.wmu.Lock()
		_ = c.publishLocked(nil, "close", ReasonHeader, reason)
		c.wmu.Unlock()
		close(c.closed)
		c.mu.Lock()
		c.release()
		c.mu.Unlock()
		if c.onClose != nil {
			c.onClose()
		}
	})
	if !first {
		return net.ErrClosed
	}
	return nil
}

// LocalAddr implements net.Conn.
func (c *streamConn) LocalAddr() net.Addr { return c.local }

// RemoteAddr implements net.Conn.
func (c *streamConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline implements net.Conn.
func (c *streamConn) SetDeadline(t time.Time) error { c.readDL.set(t); return nil }

// SetReadDeadline implements net.Conn.
func (c *streamConn) SetReadDeadline(t time.Time) error { c.readDL.set(t); return nil }

// SetWriteDeadline implements net.Conn: writes never wait for the peer (the
// broker's client buffers them, and reports a broker it cannot reach).
func (c *streamConn) SetWriteDeadline(time.Time) error { return nil }

var _ net.Conn = (*streamConn)(nil)
