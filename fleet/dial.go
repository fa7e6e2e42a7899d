package fleet

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// Target is what a broker URL names: the broker, the subjects' prefix and,
// for one game, its instance.
//
//	nats://host:4222              the fleet on that broker
//	nats://user:pass@host:4222/match-17?prefix=studio.ecs
//	                              one instance, credentials and a prefix
type Target struct {
	Server   string // the broker's URL, as nats.Connect takes it (credentials kept)
	Prefix   string
	Instance string // "" for the fleet
	// Client names the client's sessions on the broker (their subjects
	// hold it, so a broker's permissions can keep each client to its
	// own): the URL's user, or AnonymousClient.
	Client string
}

// AnonymousClient is the client name of a URL without a user.
const AnonymousClient = "anon"

// IsURL reports whether addr names a broker rather than a socket.
func IsURL(addr string) bool {
	return strings.HasPrefix(addr, "nats://") || strings.HasPrefix(addr, "tls://")
}

// ParseURL reads a broker URL.
func ParseURL(s string) (Target, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
		return Target{}, fmt.Errorf("fleet: %q: want nats://host:port[/instance]", s)
	}
	t := Target{Prefix: DefaultPrefix, Instance: strings.Trim(u.Path, "/"), Client: AnonymousClient}
	if name := u.User.Username(); name != "" {
		t.Client = name
	}
	if err := CheckName("client (the URL's user)", t.Client, false); err != nil {
		return Target{}, err
	}
	if p := u.Query().Get("prefix"); p != "" {
		t.Prefix = p
	}
	if err := CheckName("prefix", t.Prefix, true); err != nil {
		return Target{}, err
	}
	if t.Instance != "" {
		if err := CheckName("instance", t.Instance, false); err != nil {
			return Target{}, err
		}
	}
	u.Path, u.RawQuery, u.RawPath = "", "", ""
	t.Server = u.String()
	return t, nil
}

// String is the target as a URL, credentials left out.
func (t Target) String() string {
	u, err := url.Parse(t.Server)
	if err != nil {
		return t.Server
	}
	u.User = nil
	return t.on(u.String())
}

// URL is the target as a URL to dial, credentials kept.
func (t Target) URL() string { return t.on(t.Server) }

// on is the target's instance and prefix after a server's URL.
func (t Target) on(server string) string {
	s := server
	if t.Instance != "" {
		s += "/" + t.Instance
	}
	if t.Prefix != DefaultPrefix {
		s += "?prefix=" + t.Prefix
	}
	return s
}

// WithInstance is the target of one instance of t's fleet.
func (t Target) WithInstance(instance string) Target { t.Instance = instance; return t }

// Files a tool's broker connections take, named by environment
// variables (the command line's --creds and --ca set them): a NATS
// credentials file (a user's JWT and nkey), and a PEM file of the
// certificate authorities a tls:// broker's certificate is checked
// against.
const (
	CredsEnv = "ECSINSPECT_BROKER_CREDS"
	CAEnv    = "ECSINSPECT_BROKER_CA"
)

// Connect connects a client (a tool, not a game) to the broker: it fails
// at once with the broker's reason (unreachable, wrong credentials)
// rather than retrying.
func Connect(t Target, name string, timeout time.Duration, opts ...nats.Option) (*nats.Conn, error) {
	opts = append([]nats.Option{nats.Name(name), nats.Timeout(timeout), nats.MaxReconnects(0), nats.NoCallbacksAfterClientClose(),
		nats.CustomInboxPrefix(InboxPrefix(t.Client))}, opts...)
	if creds := os.Getenv(CredsEnv); creds != "" {
		opts = append(opts, nats.UserCredentials(creds))
	}
	if ca := os.Getenv(CAEnv); ca != "" {
		opts = append(opts, nats.RootCAs(ca))
	}
	nc, err := nats.Connect(t.Server, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the broker at %s: %w", t.String(), err)
	}
	return nc, nil
}

// DialURL opens a session with the instance a URL names, on a broker
// connection of its own that closes with the session.
func DialURL(addr string, timeout time.Duration) (net.Conn, error) {
	t, err := ParseURL(addr)
	if err != nil {
		return nil, err
	}
	if t.Instance == "" {
		return nil, fmt.Errorf("%s names a fleet, not one game: add the instance (%s/INSTANCE), or attach to see the fleet", t, t)
	}
	b, err := ConnectBroker(t, "ecsinspect client", timeout, Timing{})
	if err != nil {
		return nil, err
	}
	c, err := b.Dial(t.Instance, timeout)
	if err != nil {
		b.Close()
		return nil, err
	}
	c.(*streamConn).alsoClose(b.Close)
	return c, nil
}

// alsoClose runs f after the session's own close.
func (c *streamConn) alsoClose(f func()) {
	prev := c.onClose
	c.onClose = func() {
		if prev != nil {
			prev()
		}
		f()
	}
}

// newSessionID is 26 random characters: nobody guesses a session's subjects.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// Flush waits up to a second for the broker to have what nc sent, when nc
// is connected (a broker not reached yet gets it when it is: no wait).
func Flush(nc *nats.Conn) {
	if nc.IsConnected() {
		_ = nc.FlushTimeout(time.Second)
	}
}
