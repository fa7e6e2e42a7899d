package client

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Version is the release of ecsinspect's clients, sent in their Hello.
const Version = "0.1.0-dev"

// DialAddr connects to "host:port", "unix:/path", or one game on a broker,
// "nats://host:4222/INSTANCE" (a session over its subjects: see package
// fleet).
func DialAddr(addr string, timeout time.Duration) (net.Conn, error) {
	if fleet.IsURL(addr) {
		return fleet.DialURL(addr, timeout)
	}
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		return net.DialTimeout("unix", path, timeout)
	}
	return net.DialTimeout("tcp", addr, timeout)
}

// Connect dials an agent and completes the handshake as client (its name
// and version, for the agent's telemetry).
func Connect(addr, token, client string) (*protocol.Conn, *protocol.Welcome, error) {
	nc, err := DialAddr(addr, 3*time.Second)
	if err != nil {
		if fleet.IsURL(addr) {
			return nil, nil, err // it says which: the broker, or the instance
		}
		return nil, nil, fmt.Errorf("cannot reach an agent at %s: %w", addr, err)
	}
	c := protocol.NewConn(nc)
	w, err := protocol.ClientHandshake(c, protocol.Hello{Client: client, Token: token}, 5*time.Second)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return c, w, nil
}
