package conformance

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// rawClient speaks the protocol from the document alone: frames are a
// big-endian uint32 length and a msgpack [type, body]; bodies are maps.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	id   int
	// After a token's handshake: the AEADs sealing each way and the
	// number of the next frame each way (PROTOCOL.md, "Tokens and sealed
	// sessions").
	sendKey, recvKey cipher.AEAD
	sent, received   uint64
}

// msg is one decoded message.
type msg struct {
	typ  int
	body map[string]any
}

func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawClient{t: t, conn: conn, id: 1000}
}

// hello does the handshake and returns the Welcome (or Reject).
func (c *rawClient) hello(body map[string]any) msg {
	c.t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	if _, ok := body["v"]; !ok {
		body["v"] = 2
	}
	c.send(1, body)
	return c.recv()
}

func (c *rawClient) send(typ int, body any) {
	c.t.Helper()
	if err := c.trySend(typ, body); err != nil {
		c.t.Fatal(err)
	}
}

// trySend is send that returns the connection's error: for a client the
// agent may have dropped already.
func (c *rawClient) trySend(typ int, body any) error {
	c.t.Helper()
	payload, err := msgpack.Marshal([]any{typ, body})
	if err != nil {
		c.t.Fatal(err)
	}
	return c.trySendRaw(payload)
}

// helloToken does the token's handshake as the document says: a Hello
// with a nonce, the agent's Challenge, the client's proof, the agent's
// Welcome and its proof checked; then every frame is sealed. It returns
// the Welcome, or the Reject.
func (c *rawClient) helloToken(token string) msg {
	c.t.Helper()
	cn := make([]byte, 32)
	_, _ = rand.Read(cn)
	c.send(1, map[string]any{"v": 2, "cn": cn})
	ch := c.recv()
	if ch.typ != typeChallenge {
		return ch
	}
	an := ch.body["an"].([]byte)
	mac := func(label string) []byte {
		m := hmac.New(sha256.New, []byte(token))
		m.Write([]byte(label))
		m.Write(cn)
		m.Write(an)
		return m.Sum(nil)
	}
	c.send(typeAuth, map[string]any{"p": mac("ecsinspect/2 client")})
	w := c.recv()
	if w.typ != typeWelcome {
		return w
	}
	if p, _ := w.body["p"].([]byte); !hmac.Equal(p, mac("ecsinspect/2 agent")) {
		c.t.Fatalf("the agent's proof does not check: % x", p)
	}
	keys, err := hkdf.Key(sha256.New, []byte(token), append(append([]byte{}, cn...), an...), "ecsinspect/2 session keys", 64)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendKey, c.recvKey = gcm(c.t, keys[:32]), gcm(c.t, keys[32:])
	return w
}

// gcm is AES-256-GCM under key.
func gcm(t *testing.T, key []byte) cipher.AEAD {
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// frameNonce is a sealed frame's nonce: 4 zero bytes, then its number.
func frameNonce(n uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 4), n) }

func (c *rawClient) sendRaw(payload []byte) {
	c.t.Helper()
	if err := c.trySendRaw(payload); err != nil {
		c.t.Fatal(err)
	}
}

// trySendRaw is sendRaw that returns the connection's error.
func (c *rawClient) trySendRaw(payload []byte) error {
	if c.sendKey != nil {
		payload = c.sendKey.Seal(nil, frameNonce(c.sent), payload, nil)
		c.sent++
	}
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	_, err := c.conn.Write(append(frame, payload...))
	return err
}

// recv reads one message, failing the test after 5 s.
func (c *rawClient) recv() msg {
	c.t.Helper()
	m, err := c.tryRecv(5 * time.Second)
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

func (c *rawClient) tryRecv(wait time.Duration) (msg, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(wait))
	var hdr [4]byte
	if _, err := io.ReadFull(c.conn, hdr[:]); err != nil {
		return msg{}, err
	}
	payload := make([]byte, binary.BigEndian.Uint32(hdr[:]))
	if _, err := io.ReadFull(c.conn, payload); err != nil {
		return msg{}, err
	}
	if c.recvKey != nil {
		var err error
		if payload, err = c.recvKey.Open(nil, frameNonce(c.received), payload, nil); err != nil {
			return msg{}, fmt.Errorf("a sealed frame from the agent does not open: %w", err)
		}
		c.received++
	}
	var parts []any
	if err := msgpack.Unmarshal(payload, &parts); err != nil || len(parts) < 2 {
		return msg{}, fmt.Errorf("not [type, body]: %x (%v)", payload, err)
	}
	body, ok := parts[1].(map[string]any)
	if !ok {
		return msg{}, fmt.Errorf("body is a %T", parts[1])
	}
	return msg{typ: int(num(parts[0])), body: body}, nil
}

// request sends a request with a fresh id and returns the message that
// answers it: a Reply with the id, or data carrying it in sub or id.
func (c *rawClient) request(typ int, body map[string]any) msg {
	c.t.Helper()
	c.id++
	body["id"] = c.id
	c.send(typ, body)
	return c.await(c.id)
}

// await reads until a message answers request id.
func (c *rawClient) await(id int) msg {
	c.t.Helper()
	for {
		m := c.recv()
		if m.typ == typeReply && num(m.body["id"]) == int64(id) {
			return m
		}
		if (m.typ == typePage || m.typ == typeDetail) && num(m.body["sub"]) == int64(id) {
			return m
		}
		if m.typ == typeSnapshot && num(m.body["id"]) == int64(id) {
			return m
		}
	}
}

// closed reports whether the agent closed the connection within wait,
// returning what it sent last before closing.
func (c *rawClient) closed(wait time.Duration) (last msg, closed bool) {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		m, err := c.tryRecv(time.Until(deadline))
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return last, false
			}
			return last, true
		}
		last = m
	}
	return last, false
}

// Message types, from the document.
const (
	typeWelcome   = 64
	typeReject    = 65
	typeReply     = 66
	typeSummary   = 67
	typePage      = 68
	typeDetail    = 69
	typeJournal   = 71
	typeSnapshot  = 72
	typeWorld     = 73
	typeSeries    = 75
	typeAuth      = 21
	typeChallenge = 77
)

// num reads any msgpack integer or float as an int64.
func num(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case int:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	case uint:
		return int64(x)
	case float64:
		return int64(x)
	case float32:
		return int64(x)
	}
	return -1 << 62
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func unmarshal(b []byte, v any) error { return msgpack.Unmarshal(b, v) }
