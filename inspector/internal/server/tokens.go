package server

import (
	"net"
	"time"
)

// tokenFailures is one remote host's run of wrong tokens.
type tokenFailures struct {
	count int
	last  time.Time
}

// Back-off after wrong tokens, per connection: every connection from a
// host that sent wrong tokens lately waits before its token is checked,
// right or wrong (so the wait says nothing of the token), 100 ms after
// the first wrong one, doubling with each up to 2 s; a host that stays
// quiet for a minute starts over. No connection is refused for another's
// wrong tokens: the holder of the right one waits at most tokenBackoffMax
// and gets in. A guesser gets one try per connection per wait, and its
// connections hold handshake slots (Options.MaxHandshakes) meanwhile: 64
// tries every 2 s at most, where a token of 16 random letters takes 10^22.
const (
	tokenBackoffStart = 100 * time.Millisecond
	tokenBackoffMax   = 2 * time.Second
	tokenForgetAfter  = time.Minute
	maxTrackedHosts   = 4096
)

// TokenBackoff is how long a connection from host waits before its token
// is checked.
func (s *Server) TokenBackoff(host string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.failures[host]
	if f == nil || time.Since(f.last) > tokenForgetAfter {
		return 0
	}
	return min(tokenBackoffStart<<min(f.count-1, 6), tokenBackoffMax)
}

// waitTokenBackoff holds a connection from host for its back-off, or
// until the agent closes; false if it closed.
func (s *Server) waitTokenBackoff(host string) bool {
	wait := s.TokenBackoff(host)
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.closed:
		return false
	}
}

func (s *Server) tokenFailed(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	f := s.failures[host]
	if f == nil || now.Sub(f.last) > tokenForgetAfter {
		if len(s.failures) >= maxTrackedHosts {
			for h, old := range s.failures { // forget the stale ones
				if now.Sub(old.last) > tokenForgetAfter {
					delete(s.failures, h)
				}
			}
		}
		f = &tokenFailures{}
		s.failures[host] = f
	}
	f.count++
	f.last = now
}

// remoteHost is the address a connection comes from, without its port
// (a Unix socket's peers share one).
func remoteHost(nc net.Conn) string {
	addr := nc.RemoteAddr()
	if addr == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}
