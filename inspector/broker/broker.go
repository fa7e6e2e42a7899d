package broker

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/inspector/internal/link"
	"github.com/nats-io/nats.go"
)

func init() { link.Broker = start }

// transport is the agent's broker half: the connection, the listener of
// sessions its clients open, and the announcements of its instance. The
// game goroutine never touches it: Sync leaves a status the announcements
// read, and every send is on the transport's goroutines.
type transport struct {
	nc       *nats.Conn
	ln       *fleet.Listener
	presence *fleet.Presence
	listener atomic.Pointer[fleet.Listener] // ln, for the connection's handlers
	// errs counts the broker connection's errors (slow consumers, lost
	// connections); each is also logged as it comes.
	errs atomic.Uint64
}

// start connects to the broker the agent's options name; a broker that is
// down is retried in the background, so the game starts regardless.
func start(a link.Agent) (link.Transport, error) {
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
	b := &transport{}
	srv := a.Server
	nc, err := nats.Connect(t.Server,
		nats.Name("ecsinspect agent "+a.Instance),
		nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.IgnoreAuthErrorAbort(), // wrong credentials are logged and retried: the game starts regardless
		nats.CustomReconnectDelay(reconnectDelay),
		nats.ReconnectBufSize(8<<20), nats.FlusherTimeout(5*time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			b.errs.Add(1)
			srv.Logf("broker %s: disconnected: %v", t, err)
			if ln := b.listener.Load(); ln != nil {
				ln.Lost(err) // their messages in flight are lost: end them now
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { srv.Logf("broker %s: reconnected", t) }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			b.errs.Add(1)
			srv.Logf("broker %s: %v", t, err)
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("inspector: broker %s: %w", t, err)
	}
	ln, err := fleet.Listen(nc, t.Prefix, a.Instance, fleet.Timing{})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("inspector: broker %s: %w", t, err)
	}
	host, _ := os.Hostname()
	static := fleet.Status{Game: a.Game, Instance: a.Instance, Host: host, PID: os.Getpid(), Build: buildOf(), Started: a.Started.UnixMilli()}
	p, err := fleet.Present(nc, t.Prefix, a.AnnounceEvery, func() fleet.Status { return withGame(static, a.Status()) })
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
func withGame(s fleet.Status, g link.Status) fleet.Status {
	s.Tick, s.Entities, s.Paused, s.Clients, s.TPS, s.FrameP99, s.Hits = g.Tick, g.Entities, g.Paused, g.Clients, g.TPS, g.FrameP99, g.Hits
	return s
}

// reconnectDelay backs off from half a second to 30 s.
func reconnectDelay(attempts int) time.Duration {
	d := 500 * time.Millisecond << min(attempts, 6)
	return min(d, 30*time.Second)
}

// Close says the instance is gone and leaves the broker.
func (b *transport) Close() {
	b.presence.Stop()
	_ = b.ln.Close()
	fleet.Flush(b.nc)
	b.nc.Close()
}

// Counts are the broker connection's errors (lost connections, slow
// consumers), the discovery requests left unanswered as a flood
// ("throttled"), and messages for no session ("stray").
func (b *transport) Counts() map[string]uint64 {
	return map[string]uint64{"errors": b.errs.Load(), "throttled": b.presence.Throttled.Load(), "stray": b.ln.Stray.Load()}
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
