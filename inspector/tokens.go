package inspector

import (
	"net"
	"time"
)

// tokenFailures is one remote host's run of wrong tokens.
type tokenFailures struct {
	count int
	until time.Time // no token from this host is checked before then
	last  time.Time
}

// Back-off after wrong tokens: each doubles the wait before the host's
// next token is checked, from 100 ms up to 5 s; a host that stays quiet for a minute starts
// over. Guessing a token costs minutes per thousand tries, not a second.
const (
	tokenBackoffStart = 100 * time.Millisecond
	tokenBackoffMax   = 5 * time.Second
	tokenForgetAfter  = time.Minute
	maxTrackedHosts   = 4096
)

// tokenBackoff is how long host must still wait before its token is checked.
func (a *Agent) tokenBackoff(host string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.failures[host]
	if f == nil {
		return 0
	}
	return max(time.Until(f.until), 0)
}

func (a *Agent) tokenFailed(host string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	f := a.failures[host]
	if f == nil || now.Sub(f.last) > tokenForgetAfter {
		if len(a.failures) >= maxTrackedHosts {
			for h, old := range a.failures { // forget the stale ones
				if now.Sub(old.last) > tokenForgetAfter {
					delete(a.failures, h)
				}
			}
		}
		f = &tokenFailures{}
		a.failures[host] = f
	}
	f.count++
	f.last = now
	wait := tokenBackoffStart << min(f.count-1, 6)
	f.until = now.Add(min(wait, tokenBackoffMax))
}

func (a *Agent) tokenPassed(host string) {
	a.mu.Lock()
	delete(a.failures, host)
	a.mu.Unlock()
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
