package conformance

import (
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
		body["v"] = 1
	}
	c.send(1, body)
	return c.recv()
}

func (c *rawClient) send(typ int, body any) {
	c.t.Helper()
	payload, err := msgpack.Marshal([]any{typ, body})
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(payload)
}

func (c *rawClient) sendRaw(payload []byte) {
	c.t.Helper()
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	if _, err := c.conn.Write(append(frame, payload...)); err != nil {
		c.t.Fatal(err)
	}
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
	typeWelcome  = 64
	typeReject   = 65
	typeReply    = 66
	typeSummary  = 67
	typePage     = 68
	typeDetail   = 69
	typeJournal  = 71
	typeSnapshot = 72
	typeWorld    = 73
	typeSeries   = 75
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
