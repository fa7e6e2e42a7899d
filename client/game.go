package client

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Game is one game a client reaches: an agent's socket ("host:port",
// "unix:/path"), one instance on a broker over a connection of its own
// ("nats://host:4222/INSTANCE"), or an instance of an open Fleet over the
// fleet's connection (Fleet.Game).
type Game struct {
	addr     string
	token    string
	fleet    *Fleet // with instance: reached over the fleet's connection
	instance string
	live     bool // the fleet's roster just heard it: no ping before the session
}

// known is g, heard from just now on its fleet's broker: its session
// opens without asking first whether the instance is there.
func (g Game) known() Game { g.live = true; return g }

// GameAt is the game at addr, reached with token. For a broker's URL
// without credentials, or without a token, what `ecsinspect fleet` saved
// for that broker is used (see SaveCredentials).
func GameAt(addr, token string) Game {
	addr, token = withSavedCredentials(addr, token)
	return Game{addr: addr, token: token}
}

// String names the game as output shows it: no credentials.
func (g Game) String() string {
	if g.fleet != nil {
		return g.fleet.broker.Target().WithInstance(g.instance).String()
	}
	if fleet.IsURL(g.addr) {
		if t, err := fleet.ParseURL(g.addr); err == nil {
			return t.String()
		}
	}
	return g.addr
}

// dial opens the game's connection, not yet in its handshake.
func (g Game) dial(timeout time.Duration) (net.Conn, error) {
	switch {
	case g.fleet != nil && g.live:
		return g.fleet.broker.DialKnown(g.instance, timeout)
	case g.fleet != nil:
		return g.fleet.broker.Dial(g.instance, timeout)
	case fleet.IsURL(g.addr):
		return fleet.DialURL(g.addr, timeout) // it says which failed: the broker, or the instance
	}
	var nc net.Conn
	var err error
	if path, ok := strings.CutPrefix(g.addr, "unix:"); ok {
		nc, err = net.DialTimeout("unix", path, timeout)
	} else {
		nc, err = net.DialTimeout("tcp", g.addr, timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot reach an agent at %s: %w", g.addr, err)
	}
	return nc, nil
}

// Connect dials the game and completes the handshake as client (its name
// and version, for the agent's telemetry).
func (g Game) Connect(client string) (*protocol.Conn, *protocol.Welcome, error) {
	return g.connect(client, 0)
}

// connect is Connect reading frames of up to maxFrame bytes (0: the
// protocol's default).
func (g Game) connect(client string, maxFrame uint32) (*protocol.Conn, *protocol.Welcome, error) {
	nc, err := g.dial(3 * time.Second)
	if err != nil {
		return nil, nil, err
	}
	c := protocol.NewConn(nc)
	w, err := protocol.ClientHandshake(c, protocol.Hello{Client: client, Token: g.token, MaxFrame: maxFrame}, 5*time.Second)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return c, w, nil
}

// Dial connects to the game for a few requests.
func (g Game) Dial() (*OneShot, error) {
	c, w, err := g.Connect("ecsinspect " + Version)
	if err != nil {
		return nil, err
	}
	return &OneShot{Conn: c, ID: 100, Game: w.Game}, nil
}
