package inspector

import (
	"encoding/binary"
	"errors"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// pace measures the game's frames over d.
func (g *game) pace(d time.Duration) int64 {
	at := g.frames.Load()
	time.Sleep(d)
	return g.frames.Load() - at
}

// TestFaultsLeaveTheGameAlone throws bad input and bad behaviour at the
// agent; through it all the game keeps its pace, a well-behaved client keeps
// receiving, the world is unchanged, and no goroutine is left behind.
func TestFaultsLeaveTheGameAlone(t *testing.T) {
	before := runtime.NumGoroutine()
	g := startGame(t, Options{Token: "t0k-0123456789abcdefghi", StuckTimeout: 500 * time.Millisecond, HandshakeTimeout: 300 * time.Millisecond, MaxClients: 8})
	g.on(func() { // enough rows that a client who never reads fills its socket fast
		ecs.NewMap3[Position, Velocity, Health](g.w).SpawnBatch(5000, func(_ int, _ ecs.Entity, _ *Position, v *Velocity, _ *Health) {
			v.X = 1 // they move, so every frame of a page is new
		})
	})
	good := dial(t, g, protocol.Hello{Token: "t0k-0123456789abcdefghi"})
	good.reply(&protocol.Subscribe{What: protocol.SubSummary, Hz: 60})
	good.summary()
	normal := g.pace(200 * time.Millisecond)
	raw := func() net.Conn {
		nc, err := net.Dial("tcp", g.agent.Addr())
		if err != nil {
			t.Fatal(err)
		}
		return nc
	}
	faults := map[string]func(){
		"garbage bytes": func() {
			nc := raw()
			_, _ = nc.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			time.Sleep(50 * time.Millisecond)
			nc.Close()
		},
		"oversize length": func() {
			nc := raw()
			var hdr [4]byte
			binary.BigEndian.PutUint32(hdr[:], 0xfffffff0)
			_, _ = nc.Write(hdr[:])
			time.Sleep(50 * time.Millisecond)
			nc.Close()
		},
		"half a frame then silence": func() {
			nc := raw()
			_, _ = nc.Write([]byte{0, 0, 0, 50, 0x92, 0x01})
			time.Sleep(400 * time.Millisecond) // past the handshake timeout
			nc.Close()
		},
		"wrong token": func() {
			_, err := tryDial(g, protocol.Hello{Token: "nope-0123456789abcdefg"})
			var re *protocol.RejectError
			if !errors.As(err, &re) || re.Code != protocol.ErrToken {
				t.Errorf("wrong token: %v", err)
			}
		},
		"wrong version": func() {
			_, err := tryDial(g, protocol.Hello{Version: 7, Token: "t0k-0123456789abcdefghi"})
			var re *protocol.RejectError
			if !errors.As(err, &re) || re.Code != protocol.ErrVersion {
				t.Errorf("wrong version: %v", err)
			}
		},
		"100 connections opened and dropped": func() {
			for range 100 {
				nc := raw()
				nc.Close()
			}
		},
		"a client that never reads": func() {
			nc, err := net.Dial("tcp", g.agent.Addr())
			if err != nil {
				t.Fatal(err)
			}
			_ = nc.(*net.TCPConn).SetReadBuffer(4096) // a small window: the agent's writes back up fast
			c := &testClient{conn: protocol.NewConn(nc)}
			if _, err := protocol.ClientHandshake(c.conn, protocol.Hello{Token: "t0k-0123456789abcdefghi"}, 2*time.Second); err != nil {
				t.Fatal(err)
			}
			// Ask for a lot, read nothing: the agent must coalesce, then drop it.
			for i := range 20 {
				c.t = t
				c.id = uint32(100 + i)
				_ = c.conn.Send(&protocol.Subscribe{ID: uint32(i + 1), What: protocol.SubPage, Query: "Position", Limit: 1000, Hz: 60})
			}
			deadline := time.Now().Add(15 * time.Second) // polled: the race detector on a loaded machine is slow to fill the socket
			for g.agent.srv.Counts().Dropped == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if g.agent.srv.Counts().Dropped == 0 {
				t.Error("a client that never reads was not dropped")
			}
			if g.agent.srv.Counts().Coalesced == 0 {
				t.Error("no frames were coalesced for the client that never reads")
			}
			c.conn.Close()
		},
		"a request before the handshake": func() {
			nc := raw()
			conn := protocol.NewConn(nc)
			_ = conn.Send(&protocol.Despawn{ID: 1, Entity: wire(g.ents[0])})
			m, _ := conn.Receive()
			if r, ok := m.(*protocol.Reject); !ok || r.Code != protocol.ErrProtocol {
				t.Errorf("request before hello: %+v", m)
			}
			nc.Close()
		},
	}
	for name, fault := range faults {
		done := make(chan struct{})
		go func() { defer close(done); fault() }()
		during := g.pace(200 * time.Millisecond)
		<-done
		// Not a timing test: the game must keep running (a Sync that waited
		// on a socket would stop it), whatever else loads the machine.
		if during < normal/20+1 {
			t.Errorf("%s: the game nearly stopped: %d frames in 200ms (normally %d)", name, during, normal)
		}
		// The good client still gets frames.
		good.summary()
	}
	g.on(func() {
		if g.w.Len() != 5020 || !g.w.Alive(g.ents[0]) {
			t.Error("the world changed")
		}
	})
	good.conn.Close()
	g.close()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestListenRules(t *testing.T) {
	w := ecs.NewWorld()
	err := New(w, Options{Addr: "0.0.0.0:0"}).Start()
	if err == nil || !strings.Contains(err.Error(), "without a token") {
		t.Errorf("open address without a token: %v", err)
	}
	// A person's token is refused: one captured proof would give it away.
	if err := New(w, Options{Addr: "0.0.0.0:0", Token: "s3cret-T0ken"}).Start(); err == nil || !strings.Contains(err.Error(), "too weak") {
		t.Errorf("open address with a weak token: %v", err)
	}
	a := New(w, Options{Addr: "0.0.0.0:0", Token: protocol.NewToken()})
	if err := a.Start(); err != nil {
		t.Errorf("open address with a token: %v", err)
	}
	a.Close()
	sock := filepath.Join(t.TempDir(), "g.sock")
	u := New(w, Options{Addr: "unix:" + sock})
	if err := u.Start(); err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	nc, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := protocol.ClientHandshake(protocol.NewConn(nc), protocol.Hello{}, time.Second); err != nil {
		t.Errorf("unix socket handshake: %v", err)
	}
	if err := New(w, Options{Addr: "nonsense"}).Start(); err == nil {
		t.Error("a bad address was accepted")
	}
}

func TestBusy(t *testing.T) {
	g := startGame(t, Options{MaxClients: 2})
	dial(t, g, protocol.Hello{})
	dial(t, g, protocol.Hello{})
	_, err := tryDial(g, protocol.Hello{})
	var re *protocol.RejectError
	if !errors.As(err, &re) || re.Code != protocol.ErrBusy {
		t.Errorf("third client: %v", err)
	}
}
