package protocol

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestWeakTokensAreRefused: a person's word or phrase is refused, a random
// token of NewToken's is taken, no token is no token.
func TestWeakTokensAreRefused(t *testing.T) {
	for _, weak := range []string{"s3cret", "s3cret-T0ken", "correct horse", "aaaaaaaaaaaaaaaaaaaaaaaa", "abababababcdcdcdcdcd", "0123456780123456780"} {
		if err := CheckToken(weak); err == nil || !strings.Contains(err.Error(), "too weak") {
			t.Errorf("CheckToken(%q) = %v, want it refused as too weak", weak, err)
		}
	}
	seen := map[string]bool{}
	for range 100 {
		tok := NewToken()
		if err := CheckToken(tok); err != nil || len(tok) != 32 || seen[tok] {
			t.Fatalf("NewToken() = %q (%d characters, seen before %v): %v", tok, len(tok), seen[tok], err)
		}
		seen[tok] = true
	}
	if err := CheckToken(""); err != nil {
		t.Errorf("no token: %v", err)
	}
}

// TestAClientSendsNothingWithAWeakToken: a client with a weak token
// refuses before it sends a byte, so an impostor on the game's address
// learns no proof to guess the token from.
func TestAClientSendsNothingWithAWeakToken(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	got := make(chan int, 1)
	go func() {
		_ = b.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		buf := make([]byte, 64)
		n, _ := b.Read(buf)
		got <- n
	}()
	_, err := ClientHandshake(NewConn(a), Hello{Client: "test", Token: "s3cret-T0ken"}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "too weak") {
		t.Fatalf("a handshake with a weak token: %v, want it refused as too weak", err)
	}
	if n := <-got; n != 0 {
		t.Fatalf("the client sent %d bytes with a weak token", n)
	}
}
