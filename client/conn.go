package client

import (
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Version is the release of ecsinspect's clients, sent in their Hello.
const Version = "0.1.0-dev"

// Connect dials an agent ("host:port", "unix:/path", or one game on a
// broker, "nats://host:4222/INSTANCE") and completes the handshake as
// client (its name and version, for the agent's telemetry).
func Connect(addr, token, client string) (*protocol.Conn, *protocol.Welcome, error) {
	return GameAt(addr, token).Connect(client)
}
