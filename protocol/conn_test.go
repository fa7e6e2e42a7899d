package protocol

import (
	"bytes"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve accepts one connection and runs the agent side of the handshake
// with token "t0k-0123456789abcdefghi"; the result arrives on the returned channel.
func serve(t *testing.T, ln net.Listener) <-chan error {
	done := make(chan error, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		c := NewConn(nc)
		defer c.Close()
		_, err = ServerHandshake(c, time.Second, func(h *Hello, prove Prover) (*Welcome, *Reject) {
			if ok, err := prove("t0k-0123456789abcdefghi"); err != nil || !ok {
				return nil, &Reject{Code: ErrToken, Reason: "the token is wrong"}
			}
			return &Welcome{Game: "test", MaxFrame: 4096}, nil
		})
		if err == nil {
			// Echo one request as a reply, proving the pair works after.
			if m, rerr := c.Receive(); rerr == nil {
				err = c.Send(&Reply{ID: m.(Request).RequestID(), OK: true})
			} else {
				err = rerr
			}
		}
		done <- err
	}()
	return done
}

func listeners(t *testing.T) map[string]net.Listener {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unix, err := net.Listen("unix", filepath.Join(t.TempDir(), "agent.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tcp.Close(); unix.Close() })
	return map[string]net.Listener{"tcp": tcp, "unix": unix}
}

func TestHandshakeOverTCPAndUnix(t *testing.T) {
	for name, ln := range listeners(t) {
		done := serve(t, ln)
		nc, err := net.Dial(ln.Addr().Network(), ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := NewConn(nc)
		w, err := ClientHandshake(c, Hello{Client: "test", Token: "t0k-0123456789abcdefghi"}, time.Second)
		if err != nil || w.Game != "test" {
			t.Fatalf("%s: welcome %+v, %v", name, w, err)
		}
		if err := c.Send(&Pause{ID: 9}); err != nil {
			t.Fatal(err)
		}
		m, err := c.Receive()
		if r, ok := m.(*Reply); err != nil || !ok || r.ID != 9 || !r.OK {
			t.Errorf("%s: reply %+v, %v", name, m, err)
		}
		if err := c.Send(&Spawn{ID: 1, Components: []ComponentValue{{Component: strings.Repeat("x", 5000)}}}); !errors.Is(err, ErrFrameTooLarge) {
			t.Errorf("%s: a frame over the agent's 4096-byte limit was sent: %v", name, err)
		}
		c.Close()
		if err := <-done; err != nil {
			t.Errorf("%s: agent side: %v", name, err)
		}
	}
}

func TestHandshakeRejections(t *testing.T) {
	ln := listeners(t)["tcp"]
	dial := func() *Conn {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return NewConn(nc)
	}
	// Wrong token.
	done := serve(t, ln)
	c := dial()
	_, err := ClientHandshake(c, Hello{Token: "nope-0123456789abcdefg"}, time.Second)
	var re *RejectError
	if !errors.As(err, &re) || re.Code != ErrToken || !strings.Contains(err.Error(), "the token is wrong") {
		t.Errorf("bad token: %v", err)
	}
	c.Close()
	<-done
	// Wrong version.
	done = serve(t, ln)
	c = dial()
	_, err = ClientHandshake(c, Hello{Version: 99, Token: "t0k-0123456789abcdefghi"}, time.Second)
	if !errors.As(err, &re) || re.Code != ErrVersion || !strings.Contains(re.Reason, "version 2, the client 99") {
		t.Errorf("bad version: %v", err)
	}
	c.Close()
	<-done
	// A request before the hello.
	done = serve(t, ln)
	c = dial()
	_ = c.Send(&Pause{ID: 1})
	m, _ := c.Receive()
	if r, ok := m.(*Reject); !ok || r.Code != ErrProtocol {
		t.Errorf("request before hello answered with %+v", m)
	}
	c.Close()
	if err := <-done; err == nil {
		t.Error("agent accepted a connection that skipped the hello")
	}
	// Silence: the agent gives up after its timeout.
	done = serve(t, ln)
	c = dial()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no hello within") {
			t.Errorf("silent client: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Error("agent waited past its handshake timeout")
	}
	c.Close()
}

// TestClientRefusesAnAgentThatCannotProveTheToken: a client with a token
// finishes a handshake only with an agent that proves it knows the token:
// one with another token, or one that asks for none (an impersonator), is
// refused, and neither learns the token.
func TestClientRefusesAnAgentThatCannotProveTheToken(t *testing.T) {
	ln := listeners(t)["tcp"]
	impostor := func(token string) {
		go func() {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			c := NewConn(nc)
			defer c.Close()
			_, _ = ServerHandshake(c, time.Second, func(h *Hello, prove Prover) (*Welcome, *Reject) {
				if token != "" {
					_, _ = prove(token) // its proof will not check: it is another token
				}
				return &Welcome{Game: "test", MaxFrame: 4096}, nil
			})
		}()
	}
	for _, tc := range []struct{ impostorToken, says string }{
		{"another", "could not prove it knows the token"},
		{"", "asked for no token"},
	} {
		impostor(tc.impostorToken)
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, err = ClientHandshake(NewConn(nc), Hello{Token: "t0k-0123456789abcdefghi"}, time.Second)
		var re *RejectError
		if !errors.As(err, &re) || re.Code != ErrToken || !strings.Contains(re.Reason, tc.says) {
			t.Errorf("an impostor with token %q: %v, want a refusal saying %q", tc.impostorToken, err, tc.says)
		}
		nc.Close()
	}
}

// FuzzOpenSealed: bytes that are not a sealed frame of the session never
// open, and never panic.
func FuzzOpenSealed(f *testing.F) {
	send, _ := SessionKeys("t0k", make([]byte, NonceSize), make([]byte, NonceSize))
	good := newFrameSealer(send).seal(nil, []byte("\x92\x0b\x81\xa2id\x01"))
	f.Add(good)
	f.Add([]byte{})
	f.Add(make([]byte, SealOverhead))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newFrameSealer(send)
		out, err := s.open(append([]byte(nil), b...))
		if err == nil && !bytes.Equal(b, good) {
			t.Fatalf("%x opened as %x", b, out)
		}
	})
}
