package broker

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/inspector/internal/transport"
	"github.com/nats-io/nats.go"
)

func init() { transport.Broker = start }

// brokerTransport is the agent's broker half: the connection, the listener of
// sessions its clients open, and the announcements of its instance. The
// game goroutine never touches it: Sync leaves a status the announcements
// read, and every send is on the transport's goroutines.
type brokerTransport struct {
	nc       *nats.Conn
	ln       *fleet.Listener
	presence *fleet.Presence
	listener atomic.Pointer[fleet.Listener] // ln, for the connection's handlers
	// errs counts the broker connection's errors (slow consumers, lost
	// connections, refusals); each is also logged as it comes.
	errs  atomic.Uint64
	state atomic.Value // string: how the connection stands (State)
}

// start connects to the broker the agent's options name; a broker that is
// down is retried in the background, so the game starts regardless.
func start(a transport.Agent) (transport.Running, error) {
	t, err := fleet.ParseURL(a.URL)
	if err != nil {
		return nil, fmt.Errorf("inspector: Broker: %w", err)
	}
	if t.Instance != "" {
		return nil, fmt.Errorf("inspector: Broker %q: name the instance in Options.Instance, not the URL", a.URL)
	}
	if a.Prefix != "" {
		t.Prefix = a.Prefix
	}
	if err := fleet.CheckName("prefix", t.Prefix, true); err != nil {
		return nil, fmt.Errorf("inspector: %w", err)
	}
	if err := fleet.CheckName("instance", a.Instance, false); err != nil {
		return nil, fmt.Errorf("inspector: Options.%w", err)
	}
	b := &brokerTransport{}
	b.state.Store("connecting to " + t.String())
	srv := a.Server
	failed := func(what string, err error) {
		b.errs.Add(1)
		state := what + ": " + err.Error() + "; retrying"
		if refused(err) {
			state = "refused by the broker: " + err.Error() + " (check Options.Broker's user and password, or BrokerCreds); retrying"
		}
		b.state.Store(state)
		srv.Logf("broker %s: %s", t, state)
	}
	opts := []nats.Option{
		nats.Name("ecsinspect agent " + a.Instance),
		nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.IgnoreAuthErrorAbort(), // wrong credentials are logged and retried: the game starts regardless
		nats.CustomReconnectDelay(reconnectDelay),
		nats.ReconnectBufSize(8 << 20), nats.FlusherTimeout(5 * time.Second),
		nats.ConnectHandler(func(*nats.Conn) { b.state.Store("connected"); srv.Logf("broker %s: connected", t) }),
		nats.ReconnectHandler(func(*nats.Conn) { b.state.Store("connected"); srv.Logf("broker %s: reconnected", t) }),
		nats.ReconnectErrHandler(func(_ *nats.Conn, err error) { failed("cannot connect", err) }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err == nil {
				err = errors.New("the connection closed")
			}
			failed("disconnected", err)
			if ln := b.listener.Load(); ln != nil {
				ln.Lost(err) // their messages in flight are lost: end them now
			}
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if refused(err) {
				failed("refused", err)
				return
			}
			b.errs.Add(1)
			srv.Logf("broker %s: %v", t, err)
		}),
	}
	if a.Creds != "" {
		opts = append(opts, nats.UserCredentials(a.Creds))
	}
	if a.CA != "" {
		opts = append(opts, nats.RootCAs(a.CA))
	}
	nc, err := nats.Connect(t.Server, opts...)
	if err != nil {
		return nil, fmt.Errorf("inspector: broker %s: %w", t, err)
	}
	ln, err := fleet.Listen(nc, t.Prefix, a.Instance, fleet.Timing{Idle: a.SessionIdle, Ping: a.SessionIdle / 3})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("inspector: broker %s: %w", t, err)
	}
	host, _ := os.Hostname()
	static := fleet.Status{Game: a.Game, Instance: a.Instance, Host: host, PID: os.Getpid(), Build: buildOf(), Started: a.Started.UnixMilli()}
	key := fleet.NewInstanceKey() // pinned by clients while this run lives
	if a.Token != "" {
		key = fleet.InstanceKey(a.Token, a.Instance) // known to every client that holds the token
	}
	p, err := fleet.Present(nc, t.Prefix, a.AnnounceEvery, key, func() fleet.Status { return withGame(static, a.Status()) })
	if err != nil {
		_ = ln.Close()
		nc.Close()
		return nil, fmt.Errorf("inspector: broker %s: %w", t, err)
	}
	b.nc, b.ln, b.presence = nc, ln, p
	b.listener.Store(ln)
	srv.Serve(ln)
	return b, nil
}

// withGame is the instance's announcement: what never changes, and the
// game as Sync last left it.
func withGame(s fleet.Status, g transport.Status) fleet.Status {
	s.Tick, s.Entities, s.Paused, s.Clients, s.TPS, s.FrameP99, s.Hits = g.Tick, g.Entities, g.Paused, g.Clients, g.TPS, g.FrameP99, g.Hits
	return s
}

// reconnectDelay backs off from half a second to 30 s.
func reconnectDelay(attempts int) time.Duration {
	d := 500 * time.Millisecond << min(attempts, 6)
	return min(d, 30*time.Second)
}

// Close says the instance is gone and leaves the broker.
func (b *brokerTransport) Close() {
	b.presence.Stop()
	_ = b.ln.Close()
	fleet.Flush(b.nc)
	b.nc.Close()
}

// Counts are the broker connection's errors (lost connections, slow
// consumers, refusals), the ping requests left unanswered as a flood
// ("throttled"), the discover requests ("discovers") and the
// announcements made ("announced": a flood of discovers makes one each
// quarter second at most), sessions opened and refused ("opened",
// "refused": past the opening rate or the open sessions' bound), and
// messages for no session ("stray").
func (b *brokerTransport) Counts() map[string]uint64 {
	return map[string]uint64{"errors": b.errs.Load(), "throttled": b.presence.Throttled.Load(), "stray": b.ln.Stray.Load(),
		"opened": b.ln.Opened.Load(), "refused": b.ln.Refused.Load(),
		"discovers": b.presence.Discovers.Load(), "announced": b.presence.Announced.Load()}
}

// State says how the connection to the broker stands.
func (b *brokerTransport) State() string { return b.state.Load().(string) }

// refused reports whether err is the broker refusing the credentials or a
// permission.
func refused(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrPermissionViolation) ||
		strings.Contains(strings.ToLower(err.Error()), "authorization violation") || strings.Contains(strings.ToLower(err.Error()), "permissions violation")
}

// buildOf is the game's build: its main module's version and revision.
func buildOf() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	out := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			out += " " + s.Value[:12]
		}
	}
	return out
}
