package inspector

import (
	"os"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/dangling"
)

// DefaultAddr is where an agent listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7777"

// Options configure an Agent. The zero value is a sensible agent on
// DefaultAddr.
type Options struct {
	// Addr is "host:port" for TCP or "unix:/path/to/socket". Default
	// DefaultAddr. Port 0 picks a free port (see Agent.Addr).
	Addr string
	// Token, if set, must be proved by clients in their handshake (it
	// never travels), and seals their sessions. It must be random: at
	// least 20 characters, 10 of them different (protocol.CheckToken;
	// protocol.NewToken and 'ecsinspect token' make one). Start refuses a
	// weaker one: a person's word or phrase falls to a dictionary from
	// one captured handshake.
	Token string
	// AllowRemote lets the agent listen on an address other machines can
	// reach without a token. Without it that is refused: anyone who can
	// reach the port could read and edit the game.
	AllowRemote bool
	// ReadOnly refuses every command that changes the world or its flow
	// (edits, spawns, despawns, pause, step) with the code "read-only".
	ReadOnly bool
	// Game names the game in the handshake and in recordings.
	Game string
	// Schedule, if set, is reported: its systems and their timings.
	Schedule *ecs.Schedule
	// MaxClients bounds connected clients; more are refused as busy.
	// Default 8. Connections still in their handshake do not count.
	MaxClients int
	// MaxHandshakes bounds connections that have not finished their
	// handshake; more are refused as busy at once. Default 64, so silent
	// connections cannot keep clients with the token out.
	MaxHandshakes int
	// MaxFrame bounds the frames the agent reads from a client, in bytes.
	// Default 64 KiB: client messages are small, and a frame may decode
	// into many times its size.
	MaxFrame int
	// MaxQueuedBytes bounds the estimated bytes of everything waiting to
	// be sent to one client (replies, frames, jobs); past it the client is
	// told why (overload) and dropped. Default 64 MiB.
	MaxQueuedBytes int64
	// FrameTimeout drops a client that sends part of a frame and stops.
	// Default 5 s. A client idle between frames is never dropped for it.
	FrameTimeout time.Duration
	// SocketMode is the permission of a Unix socket file. Default 0600:
	// only the game's user can connect.
	SocketMode os.FileMode
	// HandshakeTimeout drops a client that connects and says nothing.
	// Default 5 s.
	HandshakeTimeout time.Duration
	// StuckTimeout drops a client whose socket takes no data for this
	// long. Default 10 s.
	StuckTimeout time.Duration
	// DefaultHz is the rate of a subscription that names none. Default 10.
	DefaultHz float64
	// MaxHz caps subscription rates. Default 60.
	MaxHz float64
	// JournalSize is the structural journal the agent turns on (entries);
	// 0 means 4096, a negative value leaves the world's journal as it is.
	JournalSize int
	// RewindBytes bounds the in-memory recording of the last moments that
	// a client's Rewind restores from (every frame, kept from the first
	// Sync; the oldest frames go first). 0 means 64 MiB; a negative value
	// keeps none. A world a quarter of it cannot hold a keyframe of (its
	// values, handles and generations: about 450,000 of the demo's
	// animals at 64 MiB) is not recorded while it stays that big: the
	// summary's rewind range says so, and what budget would hold it.
	RewindBytes int64
	// RewindWindow bounds how far back that recording reaches. Default 30 s.
	RewindWindow time.Duration
	// RewindHz is the rate of that recording, in frames per second: a
	// Rewind goes back to the recorded tick at or before the one asked for
	// (then Step, or the Rewind's Exact, plays forward to it). Default 1:
	// every frame recorded costs the game a copy of what changed, and the
	// encoding a core's share (on the 100k demo, 1 a second cost 1.01x the
	// frame, 2 cost 1.03-1.05x, 10 cost 1.07-1.15x). At the default rate, a
	// world whose copy and its coding take more than 1% of the game's time
	// is recorded less often, at least once every 4 s (the 100k demo: a
	// frame every 2-3 s; the summary's rewind range says how old the newest
	// is); a rate the game sets is kept.
	RewindHz float64
	// DanglingBudget is the most of the handles stored in components and
	// resources the agent reads at one Sync, looking for those that name
	// no live entity (the Summary's dangling list). While a client is
	// attached or a dangling watchpoint is set it reads that many a frame
	// (a world whose handles fit is read whole every frame: 32,768 handles
	// cost 0.03-0.2 ms, 1-6 ns a handle in a flat grid and more behind
	// maps and pointers). With nobody attached it reads only what fits the
	// agent's own share of the game's work (2% of the frame's work plus
	// 2 µs, less what the frame's despawns spent keeping their last
	// states; at least 64 handles), a pass at most every 250 ms; the
	// Dangling view says how long a pass takes. 0 means 32,768; a negative
	// value turns the search off.
	DanglingBudget int
	// HoldTimeout is how long a held pause (a Pause, Step or Rewind sent
	// with hold: exec's, or a hit of a watchpoint set with hold) keeps the
	// game paused once no client that may resume it is connected
	// (read-only sessions do not count); then the game runs on, the agent
	// logs it, and the watchpoints that held it are suspended, saying why.
	// Default 10 minutes; negative: until a client resumes it. A pause not
	// held ends when the last client that may resume it leaves.
	HoldTimeout time.Duration

	// Broker, "nats://host:4222" (credentials may go in it:
	// nats://user:pass@host:4222), makes the agent dial out to a NATS
	// server, announce the game there and serve clients over it as over
	// its socket (PROTOCOL.md, "Over NATS"). A broker that is down is
	// retried in the background with backoff; the game never waits on it.
	// With Broker set and Addr empty, the agent listens on no socket.
	// Anyone who can publish on the fleet's subjects reaches the agent:
	// set Token (or ReadOnly) on a shared broker.
	Broker string
	// Instance names this game among others on the broker: 1 to 64 of
	// letters, digits, '-' and '_'. Default: the host's name and the pid.
	Instance string
	// BrokerPrefix begins the fleet's subjects. Default "ecsinspect".
	BrokerPrefix string
	// BrokerCreds is a NATS credentials file (a user's JWT and nkey) the
	// agent connects with; BrokerCA a PEM file of the certificate
	// authorities a tls:// broker's certificate is checked against (the
	// system's when empty). With Token set, the instance signs its
	// announcements with a key derived from the token and its name, which
	// clients that hold the token check: nobody without it can announce
	// under the name. docs/FLEET.md has the broker's side.
	BrokerCreds, BrokerCA string
	// AnnounceEvery is how often the agent announces itself on the broker.
	// Default 2 s.
	AnnounceEvery time.Duration

	rewindPaced bool // RewindHz is the default: the ring paces itself
	// sessionIdle, when set, is how long a broker session may be silent
	// before the agent ends it (fleet.DefaultIdle otherwise; tests that
	// wait for a vanished client's slots shorten it).
	sessionIdle time.Duration
}

func (o *Options) defaults() {
	if o.Addr == "" && o.Broker == "" {
		o.Addr = DefaultAddr
	}
	if o.Broker != "" && o.Instance == "" {
		o.Instance = defaultInstance()
	}
	if o.MaxClients <= 0 {
		o.MaxClients = 8
	}
	if o.MaxHandshakes <= 0 {
		o.MaxHandshakes = 64
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = 64 << 10
	}
	if o.MaxQueuedBytes <= 0 {
		o.MaxQueuedBytes = MaxQueuedBytes
	}
	if o.FrameTimeout <= 0 {
		o.FrameTimeout = 5 * time.Second
	}
	if o.SocketMode == 0 {
		o.SocketMode = 0o600
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 5 * time.Second
	}
	if o.StuckTimeout <= 0 {
		o.StuckTimeout = 10 * time.Second
	}
	if o.DefaultHz <= 0 {
		o.DefaultHz = 10
	}
	if o.MaxHz <= 0 {
		o.MaxHz = 60
	}
	if o.JournalSize == 0 {
		o.JournalSize = 4096
	}
	if o.RewindBytes == 0 {
		o.RewindBytes = 64 << 20
	}
	if o.HoldTimeout == 0 {
		o.HoldTimeout = 10 * time.Minute
	}
	if o.DanglingBudget == 0 {
		o.DanglingBudget = dangling.DefaultBudget
	}
	if o.RewindWindow <= 0 {
		o.RewindWindow = 30 * time.Second
	}
	if o.RewindHz <= 0 {
		o.RewindHz, o.rewindPaced = 1, true
	}
}
