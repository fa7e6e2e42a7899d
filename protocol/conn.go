package protocol

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// Conn carries messages over a net.Conn (TCP or Unix socket): one frame per
// message, reads capped at the negotiated size. Send and Receive may run on
// different goroutines; neither is safe for two goroutines at once.
type Conn struct {
	nc       net.Conn
	fr       *FrameReader
	maxWrite int
	wbuf     []byte
	stall    time.Duration
	armed    bool
}

// NewConn wraps nc; frames up to DefaultMaxFrame in both directions until
// the handshake says otherwise.
func NewConn(nc net.Conn) *Conn {
	return &Conn{nc: nc, fr: NewFrameReader(nc, DefaultMaxFrame), maxWrite: DefaultMaxFrame}
}

// SetLimits sets the largest frame read and written.
func (c *Conn) SetLimits(maxRead, maxWrite int) {
	c.fr.SetMax(maxRead)
	if maxWrite > 0 {
		c.maxWrite = maxWrite
	}
}

// SetFrameTimeout bounds how long a frame may take to arrive once its
// length has: a peer that sends half a frame and stops gets a timeout error
// from Receive after d, while a connection idle between frames waits as
// long as it likes. 0 turns it off. Call it between Receives.
func (c *Conn) SetFrameTimeout(d time.Duration) {
	c.stall = d
	if d <= 0 {
		c.fr.started = nil
		return
	}
	c.fr.started = func() {
		c.armed = true
		_ = c.nc.SetReadDeadline(time.Now().Add(c.stall))
	}
}

// MaxWrite is the largest frame this side sends: the peer's announced limit.
func (c *Conn) MaxWrite() int { return c.maxWrite }

// Send encodes m and writes it as one frame.
func (c *Conn) Send(m Message) error {
	var err error
	c.wbuf, err = AppendEncode(c.wbuf[:0], m)
	if err != nil {
		return err
	}
	return WriteFrame(c.nc, c.wbuf, c.maxWrite)
}

// SendEncoded writes an already encoded message as one frame.
func (c *Conn) SendEncoded(payload []byte) error { return WriteFrame(c.nc, payload, c.maxWrite) }

// Receive reads and decodes the next message.
func (c *Conn) Receive() (Message, error) {
	b, err := c.fr.ReadFrame()
	if c.armed {
		c.armed = false
		_ = c.nc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// SetReadDeadline and SetWriteDeadline pass through to the connection.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.nc.SetReadDeadline(t) }

// SetWriteDeadline sets the deadline for writes.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.nc.SetWriteDeadline(t) }

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// RemoteAddr is the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.nc.RemoteAddr() }

// RejectError is a Reject received as the answer to a Hello.
type RejectError struct {
	Code   string
	Reason string
}

func (e *RejectError) Error() string { return "protocol: agent refused the connection: " + e.Reason }

// handshakeDeadline bounds the handshake's reads and writes by timeout (0:
// no bound) until the function it returns lifts the bound.
func (c *Conn) handshakeDeadline(timeout time.Duration) (lift func()) {
	if timeout <= 0 {
		return func() {}
	}
	_ = c.SetReadDeadline(time.Now().Add(timeout))
	_ = c.SetWriteDeadline(time.Now().Add(timeout))
	return func() {
		_ = c.SetReadDeadline(time.Time{})
		_ = c.SetWriteDeadline(time.Time{})
	}
}

// ClientHandshake sends hello and waits up to timeout for the agent's
// Welcome. A Reject comes back as a *RejectError with the agent's reason.
func ClientHandshake(c *Conn, hello Hello, timeout time.Duration) (*Welcome, error) {
	if hello.Version == 0 {
		hello.Version = Version
	}
	defer c.handshakeDeadline(timeout)()
	if err := c.Send(&hello); err != nil {
		return nil, fmt.Errorf("protocol: send hello: %w", err)
	}
	m, err := c.Receive()
	if err != nil {
		return nil, fmt.Errorf("protocol: waiting for welcome: %w", err)
	}
	switch m := m.(type) {
	case *Welcome:
		if m.Version != Version {
			return nil, fmt.Errorf("protocol: agent speaks version %d, this client %d", m.Version, Version)
		}
		maxRead := DefaultMaxFrame
		if hello.MaxFrame > 0 {
			maxRead = int(hello.MaxFrame)
		}
		c.SetLimits(maxRead, int(m.MaxFrame))
		return m, nil
	case *Reject:
		return nil, &RejectError{Code: m.Code, Reason: m.Reason}
	}
	return nil, fmt.Errorf("protocol: expected welcome, got %T", m)
}

// ServerHandshake waits up to timeout for a Hello, and answers it: check
// returns the Welcome to send, or a Reject (sent, then an error returned).
// Anything but a Hello first is refused.
func ServerHandshake(c *Conn, timeout time.Duration, check func(*Hello) (*Welcome, *Reject)) (*Hello, error) {
	defer c.handshakeDeadline(timeout)()
	m, err := c.Receive()
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, fmt.Errorf("protocol: no hello within %v", timeout)
		}
		code := ErrProtocol
		if errors.Is(err, ErrFrameTooLarge) {
			code = ErrTooLarge
		}
		_ = c.Send(&Reject{Code: code, Reason: "expected a hello: " + err.Error()})
		return nil, fmt.Errorf("protocol: reading hello: %w", err)
	}
	hello, ok := m.(*Hello)
	if !ok {
		_ = c.Send(&Reject{Code: ErrProtocol, Reason: fmt.Sprintf("expected a hello, got message type %d", m.Type())})
		return nil, fmt.Errorf("protocol: expected hello, got %T", m)
	}
	if hello.Version != Version {
		r := &Reject{Code: ErrVersion, Reason: fmt.Sprintf("this agent speaks protocol version %d, the client %d", Version, hello.Version)}
		_ = c.Send(r)
		return hello, &RejectError{Code: r.Code, Reason: r.Reason}
	}
	welcome, reject := check(hello)
	if reject != nil {
		_ = c.Send(reject)
		return hello, &RejectError{Code: reject.Code, Reason: reject.Reason}
	}
	if welcome.Version == 0 {
		welcome.Version = Version
	}
	if err := c.Send(welcome); err != nil {
		return hello, err
	}
	maxWrite := DefaultMaxFrame
	if hello.MaxFrame > 0 {
		maxWrite = int(hello.MaxFrame)
	}
	c.SetLimits(int(welcome.MaxFrame), maxWrite)
	return hello, nil
}
