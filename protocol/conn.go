package protocol

import (
	"crypto/hmac"
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
	sbuf     []byte
	stall    time.Duration
	armed    bool
	out, in  *frameSealer // sealing each way, once a token handshake made keys
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

// MaxWrite is the largest message this side sends: the peer's announced
// frame limit, less what sealing adds.
func (c *Conn) MaxWrite() int {
	if c.out != nil {
		return c.maxWrite - SealOverhead
	}
	return c.maxWrite
}

// Send encodes m and writes it as one frame.
func (c *Conn) Send(m Message) error {
	var err error
	c.wbuf, err = AppendEncode(c.wbuf[:0], m)
	if err != nil {
		return err
	}
	return c.SendEncoded(c.wbuf)
}

// SendEncoded writes an already encoded message as one frame, sealed if
// the connection is.
func (c *Conn) SendEncoded(payload []byte) error {
	if c.out != nil {
		if len(payload)+SealOverhead > c.maxWrite { // refused before its number is spent
			return fmt.Errorf("%w: frame of %s exceeds limit %s", ErrFrameTooLarge, ByteSize(int64(len(payload)+SealOverhead)), ByteSize(int64(c.maxWrite)))
		}
		c.sbuf = c.out.seal(c.sbuf[:0], payload)
		payload = c.sbuf
	}
	return WriteFrame(c.nc, payload, c.maxWrite)
}

// Receive reads and decodes the next message; on a sealed connection, a
// frame that does not open is an error matching ErrSealBroken.
func (c *Conn) Receive() (Message, error) {
	b, err := c.payload()
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// ReceiveRequest is Receive for an agent: a message of a type an agent
// does not take (a Welcome, a Reply) is a *MessageError with the type and
// the id its body carried, so the refusal answers that id, as it does a
// type nobody knows.
func (c *Conn) ReceiveRequest() (Request, error) {
	b, err := c.payload()
	if err != nil {
		return nil, err
	}
	m, err := Decode(b)
	if err != nil {
		return nil, err
	}
	req, ok := m.(Request)
	if !ok {
		return nil, newMessageError(b, fmt.Errorf("message type %d is not a request an agent takes", m.Type()))
	}
	return req, nil
}

// payload reads the next frame's payload, opened if the session is sealed.
func (c *Conn) payload() ([]byte, error) {
	b, err := c.fr.ReadFrame()
	if c.armed {
		c.armed = false
		_ = c.nc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		return nil, err
	}
	if c.in != nil {
		if b, err = c.in.open(b); err != nil {
			return nil, err
		}
	}
	return b, nil
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
// With hello.Token set, the token is proved, never sent: the agent must
// ask for it (a Challenge) and prove it knows it too, and the session is
// sealed from then on; an agent that asks for no token, or cannot prove
// it, is refused as not the game the token is for.
func ClientHandshake(c *Conn, hello Hello, timeout time.Duration) (*Welcome, error) {
	if hello.Version == 0 {
		hello.Version = Version
	}
	if err := CheckToken(hello.Token); err != nil { // before anything is sent: no proof of a weak token leaves
		return nil, fmt.Errorf("protocol: %w", err)
	}
	hello.Nonce = NewNonce()
	defer c.handshakeDeadline(timeout)()
	if err := c.Send(&hello); err != nil {
		return nil, fmt.Errorf("protocol: send hello: %w", err)
	}
	m, err := c.Receive()
	if err != nil {
		return nil, fmt.Errorf("protocol: waiting for welcome: %w", err)
	}
	var agentNonce []byte
	if ch, ok := m.(*Challenge); ok {
		if hello.Token == "" {
			return nil, &RejectError{Code: ErrToken, Reason: "this agent wants a token (--token)"}
		}
		if len(ch.Nonce) != NonceSize {
			return nil, fmt.Errorf("protocol: a challenge of %d bytes, want %d", len(ch.Nonce), NonceSize)
		}
		agentNonce = ch.Nonce
		if err := c.Send(&Auth{Proof: ClientProof(hello.Token, hello.Nonce, agentNonce)}); err != nil {
			return nil, fmt.Errorf("protocol: send auth: %w", err)
		}
		if m, err = c.Receive(); err != nil {
			return nil, fmt.Errorf("protocol: waiting for welcome: %w", err)
		}
	}
	switch m := m.(type) {
	case *Welcome:
		if m.Version != Version {
			return nil, fmt.Errorf("protocol: agent speaks version %d, this client %d", m.Version, Version)
		}
		if hello.Token != "" {
			if agentNonce == nil {
				return nil, &RejectError{Code: ErrToken, Reason: "the agent asked for no token, though one was given: it is not the game the token is for (connect without a token to trust it)"}
			}
			if !hmac.Equal(m.Proof, AgentProof(hello.Token, hello.Nonce, agentNonce)) {
				return nil, &RejectError{Code: ErrToken, Reason: "the agent could not prove it knows the token: it is not the game the token is for"}
			}
		}
		maxRead := DefaultMaxFrame
		if hello.MaxFrame > 0 {
			maxRead = int(hello.MaxFrame)
		}
		c.SetLimits(maxRead, int(m.MaxFrame))
		if agentNonce != nil {
			mine, theirs := SessionKeys(hello.Token, hello.Nonce, agentNonce)
			c.Seal(mine, theirs)
		}
		return m, nil
	case *Reject:
		return nil, &RejectError{Code: m.Code, Reason: m.Reason}
	}
	return nil, fmt.Errorf("protocol: expected welcome, got %T", m)
}

// Prover runs the token's challenge on a connection in its handshake: it
// reports whether the client proved it knows token (and, when it did, the
// session is sealed once the Welcome is sent).
type Prover func(token string) (bool, error)

// ServerHandshake waits up to timeout for a Hello, and answers it: check
// returns the Welcome to send, or a Reject (sent, then an error returned);
// for an agent that has a token, check calls prove, which challenges the
// client and reports whether it proved the token. Anything but a Hello
// first is refused.
func ServerHandshake(c *Conn, timeout time.Duration, check func(h *Hello, prove Prover) (*Welcome, *Reject)) (*Hello, error) {
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
	var keys struct {
		token      string
		agentNonce []byte
	}
	prove := func(token string) (bool, error) {
		if len(hello.Nonce) != NonceSize {
			return false, nil
		}
		an := NewNonce()
		if err := c.Send(&Challenge{Nonce: an}); err != nil {
			return false, err
		}
		m, err := c.Receive()
		if err != nil {
			return false, err
		}
		auth, ok := m.(*Auth)
		if !ok || !hmac.Equal(auth.Proof, ClientProof(token, hello.Nonce, an)) {
			return false, nil
		}
		keys.token, keys.agentNonce = token, an
		return true, nil
	}
	welcome, reject := check(hello, prove)
	if reject != nil {
		_ = c.Send(reject)
		return hello, &RejectError{Code: reject.Code, Reason: reject.Reason}
	}
	if welcome.Version == 0 {
		welcome.Version = Version
	}
	if keys.agentNonce != nil {
		welcome.Proof = AgentProof(keys.token, hello.Nonce, keys.agentNonce)
	}
	if err := c.Send(welcome); err != nil {
		return hello, err
	}
	maxWrite := DefaultMaxFrame
	if hello.MaxFrame > 0 {
		maxWrite = int(hello.MaxFrame)
	}
	c.SetLimits(int(welcome.MaxFrame), maxWrite)
	if keys.agentNonce != nil {
		theirs, mine := SessionKeys(keys.token, hello.Nonce, keys.agentNonce)
		c.Seal(mine, theirs)
	}
	return hello, nil
}
