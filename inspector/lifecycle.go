package inspector

import (
	"errors"
	"fmt"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/server"
	"github.com/ecsinspect/ecsinspect/inspector/internal/transport"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Start listens on the configured address and serves clients in the
// background. It returns the listening error, if any: a refused address
// (see Options.AllowRemote) or a port in use; or a token too weak to
// survive one captured proof (protocol.CheckToken).
func (a *Agent) Start() error {
	if err := protocol.CheckToken(a.opts.Token); err != nil {
		return fmt.Errorf("inspector: Options.Token: %w", err)
	}
	if a.opts.Addr != "" {
		ln, err := server.Listen(a.opts.Addr, a.opts.Token, a.opts.AllowRemote, a.opts.SocketMode)
		if err != nil {
			return err
		}
		a.ln = ln
		a.srv.Serve(ln)
	}
	if a.opts.Broker != "" {
		if err := a.startBroker(); err != nil {
			if a.ln != nil {
				_ = a.ln.Close()
			}
			return err
		}
	}
	return nil
}

// startBroker starts the broker transport, which the game links in by
// importing package inspector/broker.
func (a *Agent) startBroker() error {
	if transport.Broker == nil {
		return errors.New(`inspector: Options.Broker is set, but the broker transport is not linked in: import _ "github.com/ecsinspect/ecsinspect/inspector/broker"`)
	}
	a.status.on = true
	a.noteStatus(time.Now(), true)
	b, err := transport.Broker(transport.Agent{Server: a.srv, Game: a.opts.Game, Instance: a.opts.Instance, URL: a.opts.Broker, Prefix: a.opts.BrokerPrefix,
		AnnounceEvery: a.opts.AnnounceEvery, Started: time.Now(), Status: func() transport.Status { return *a.status.newest.Load() },
		Token: a.opts.Token, Creds: a.opts.BrokerCreds, CA: a.opts.BrokerCA, SessionIdle: a.opts.sessionIdle})
	if err != nil {
		return err
	}
	a.broker = b
	return nil
}

// Addr is where the agent listens ("unix:/path" for a Unix socket).
func (a *Agent) Addr() string {
	if a.ln == nil {
		return ""
	}
	if a.ln.Addr().Network() == "unix" {
		return "unix:" + a.ln.Addr().String()
	}
	return a.ln.Addr().String()
}

// Clients is how many clients are connected now.
func (a *Agent) Clients() int { return a.srv.Clients() }

// Close stops listening, disconnects every client and waits for the agent's
// goroutines to end. A game paused by a client is released.
func (a *Agent) Close() error {
	a.closing.Do(func() {
		if a.broker != nil {
			a.broker.Close()
		}
	})
	return a.srv.Close()
}
