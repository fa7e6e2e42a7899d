package inspector

import (
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/nats-io/nats.go"
)

// The agent over a broker: with Options.Broker, the agent dials out to a
// NATS server, announces its instance (fleet.Presence) and serves sessions
// clients open on its subjects (fleet.Listener) exactly as it serves socket
// connections: the same handshake, tokens, limits and budgets. The game
// goroutine never touches the broker: Sync leaves a copy of the status the
// announcements carry, and every send is on the agent's goroutines. A
// broker that is down or restarts costs the game nothing; the agent
// reconnects with backoff, and sessions the restart broke end with an
// error their clients see.

// brokerState is the agent's broker half.
type brokerState struct {
	nc       *nats.Conn
	ln       *fleet.Listener
	presence *fleet.Presence
	status   atomic.Pointer[fleet.Status]   // the newest, left by Sync
	listener atomic.Pointer[fleet.Listener] // ln, for the connection's handlers
	// Sync's own bookkeeping for the status (game goroutine only).
	noted      time.Time
	notedTick  uint64
	frameTimes [128]int64
	frameN     int
	runStarted time.Time // the schedule's last run began
	started    time.Time
	host, bld  string
	// brokerErrs counts the broker connection's errors (slow consumers,
	// lost connections); each is also logged as it comes.
	brokerErrs atomic.Uint64
}

// statusEvery is how often Sync leaves a fresh status.
const statusEvery = 250 * time.Millisecond

// startBroker connects to Options.Broker; a broker that is down is retried
// in the background, so the game starts regardless.
func (a *Agent) startBroker() error {
	t, err := fleet.ParseURL(a.opts.Broker)
	if err != nil {
		return fmt.Errorf("inspector: Broker: %w", err)
	}
	if t.Instance != "" {
		return fmt.Errorf("inspector: Broker %q: name the instance in Options.Instance, not the URL", a.opts.Broker)
	}
	if a.opts.BrokerPrefix != "" {
		t.Prefix = a.opts.BrokerPrefix
	}
	if err := fleet.CheckName("prefix", t.Prefix, true); err != nil {
		return fmt.Errorf("inspector: %w", err)
	}
	if err := fleet.CheckName("instance", a.opts.Instance, false); err != nil {
		return fmt.Errorf("inspector: Options.%w", err)
	}
	b := &a.broker
	b.started = time.Now()
	b.host, _ = os.Hostname()
	b.bld = buildOf()
	a.noteStatus(time.Now(), true)
	nc, err := nats.Connect(t.Server,
		nats.Name("ecsinspect agent "+a.opts.Instance),
		nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.IgnoreAuthErrorAbort(), // wrong credentials are logged and retried: the game starts regardless
		nats.CustomReconnectDelay(reconnectDelay),
		nats.ReconnectBufSize(8<<20), nats.FlusherTimeout(5*time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			b.brokerErrs.Add(1)
			a.logf("broker %s: disconnected: %v", t, err)
			if ln := b.listener.Load(); ln != nil {
				ln.Lost(err) // their messages in flight are lost: end them now
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { a.logf("broker %s: reconnected", t) }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			b.brokerErrs.Add(1)
			a.logf("broker %s: %v", t, err)
		}),
	)
	if err != nil {
		return fmt.Errorf("inspector: broker %s: %w", t, err)
	}
	ln, err := fleet.Listen(nc, t.Prefix, a.opts.Instance)
	if err != nil {
		nc.Close()
		return fmt.Errorf("inspector: broker %s: %w", t, err)
	}
	p, err := fleet.Present(nc, t.Prefix, a.opts.AnnounceEvery, func() fleet.Status { return *b.status.Load() })
	if err != nil {
		_ = ln.Close()
		nc.Close()
		return fmt.Errorf("inspector: broker %s: %w", t, err)
	}
	b.nc, b.ln, b.presence = nc, ln, p
	b.listener.Store(ln)
	a.wg.Add(1)
	go a.acceptLoop(ln)
	return nil
}

// reconnectDelay backs off from half a second to 30 s.
func reconnectDelay(attempts int) time.Duration {
	d := 500 * time.Millisecond << min(attempts, 6)
	return min(d, 30*time.Second)
}

// closeBroker says the instance is gone and leaves the broker.
func (a *Agent) closeBroker() {
	b := &a.broker
	if b.nc == nil {
		return
	}
	b.presence.Stop()
	_ = b.ln.Close()
	fleet.Flush(b.nc)
	b.nc.Close()
}

// noteFrame keeps the frame's time for the status's percentile: from the
// schedule's start to the end of this Sync (the game's work and the
// agent's, not the wait between frames), or with no schedule, from one
// Sync to the next; game goroutine.
func (a *Agent) noteFrame(now time.Time) {
	b := &a.broker
	if b.nc == nil {
		return
	}
	ns := a.frameNs
	if !b.runStarted.IsZero() {
		ns = now.Sub(b.runStarted).Nanoseconds()
	}
	if ns <= 0 {
		return
	}
	b.frameTimes[b.frameN%len(b.frameTimes)] = ns
	b.frameN++
}

// noteStatus leaves a fresh status for the announcements, at most every
// statusEvery (now, when asked); game goroutine.
func (a *Agent) noteStatus(now time.Time, force bool) {
	b := &a.broker
	if !force && (b.nc == nil || now.Sub(b.noted) < statusEvery) {
		return
	}
	tick := a.w.Frame()
	s := fleet.Status{Game: a.opts.Game, Instance: a.opts.Instance, Host: b.host, PID: os.Getpid(), Build: b.bld,
		Started: b.started.UnixMilli(), Tick: tick, Entities: a.w.Len(), Paused: a.paused || a.mid != nil,
		Clients: int(a.tel.clients.Load())}
	if !b.noted.IsZero() && tick >= b.notedTick && !s.Paused {
		s.TPS = float64(tick-b.notedTick) / now.Sub(b.noted).Seconds()
	}
	if n := min(b.frameN, len(b.frameTimes)); n > 0 {
		times := slices.Clone(b.frameTimes[:n])
		slices.Sort(times)
		s.FrameP99 = float64(times[(n*99)/100]) / 1e6
	}
	for _, wp := range a.watches.list {
		s.Hits += wp.Hits
	}
	b.noted, b.notedTick = now, tick
	b.status.Store(&s)
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

// defaultInstance names an instance by its host and process.
func defaultInstance() string {
	host, _ := os.Hostname()
	clean := make([]rune, 0, len(host))
	for _, r := range host {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			clean = append(clean, r)
		}
		if len(clean) >= 40 {
			break
		}
	}
	if len(clean) == 0 {
		clean = []rune("game")
	}
	return fmt.Sprintf("%s-%d", string(clean), os.Getpid())
}

// Instance is the agent's name on the broker ("" without one).
func (a *Agent) Instance() string {
	if a.opts.Broker == "" {
		return ""
	}
	return a.opts.Instance
}
