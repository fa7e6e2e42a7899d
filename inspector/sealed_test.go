package inspector

import (
	"bytes"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// tap is a connection whose bytes, both ways, a sniffer keeps.
type tap struct {
	net.Conn
	mu        sync.Mutex
	out, in   bytes.Buffer
	lastFrame []byte // the last frame the client wrote, whole
}

func (c *tap) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.out.Write(b)
	c.lastFrame = append([]byte(nil), b...)
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *tap) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.in.Write(b[:n])
	c.mu.Unlock()
	return n, err
}

// dialTapped connects to the game through a tap.
func dialTapped(t *testing.T, g *game, hello protocol.Hello) (*testClient, *tap) {
	t.Helper()
	nc, err := net.Dial("tcp", g.agent.Addr())
	if err != nil {
		t.Fatal(err)
	}
	tp := &tap{Conn: nc}
	conn := protocol.NewConn(tp)
	if hello.Client == "" {
		hello.Client = "tapped"
	}
	if _, err := protocol.ClientHandshake(conn, hello, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &testClient{t: t, conn: conn}, tp
}

// TestTokenNeverTravels: a sniffer of a session with a token sees neither
// the token nor what the client asks and the agent answers; a frame it
// replays, or one it makes up, ends the session and is counted as forged,
// while other clients go on.
func TestTokenNeverTravels(t *testing.T) {
	const token = "correct-horse-battery"
	g := startGame(t, Options{Token: token})
	c, tp := dialTapped(t, g, protocol.Hello{Token: token})
	c.request(&protocol.Query{Expr: "Position.X>=0 Name"})
	page := c.await(func(m protocol.Message) bool { _, ok := m.(*protocol.Page); return ok }).(*protocol.Page)
	if page.Total != 1 {
		t.Fatalf("the query matched %d", page.Total)
	}
	tp.mu.Lock()
	seen := tp.out.String() + tp.in.String()
	tp.mu.Unlock()
	for _, secret := range []string{token, "Position.X>=0", "orc chief"} {
		if strings.Contains(seen, secret) {
			t.Errorf("a sniffer read %q on the wire", secret)
		}
	}
	if !strings.Contains(seen, "test") { // the Welcome's game name is not sealed: the tap works
		t.Fatal("the tap saw nothing")
	}

	watcher := dial(t, g, protocol.Hello{Token: token})
	watcher.reply(&protocol.Subscribe{What: protocol.SubSummary, Hz: 60})
	// A replayed frame: the client's last, sent again as is.
	tp.mu.Lock()
	replay := tp.lastFrame
	tp.mu.Unlock()
	if _, err := tp.Conn.Write(replay); err != nil {
		t.Fatal(err)
	}
	_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, err := c.conn.Receive()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the session went on after a replayed frame")
		}
		if err != nil {
			break
		}
	}
	// A made-up frame on a fresh session.
	c2, tp2 := dialTapped(t, g, protocol.Hello{Token: token})
	_ = c2
	if _, err := tp2.Conn.Write(protocol.AppendFrame(nil, []byte("\x92\x09\x81\xa2id\x01 and then some"))); err != nil {
		t.Fatal(err)
	}
	s := watcher.summaryWhere(func(s *protocol.Summary) bool { return s.Agent.DroppedBy[protocol.ErrForged] >= 2 })
	if s.Agent.DroppedBy[protocol.ErrForged] != 2 {
		t.Errorf("dropped as forged: %v", s.Agent.DroppedBy)
	}
}
