// Package localbroker runs a NATS server inside the process, on loopback:
// the broker of the fleet's tests and of ecsinspect-broker (the program
// `ecsinspect fleet` starts, so the ecsinspect command links no NATS
// server). Games never link it; they dial a broker with the fleet
// package. Package spec describes a broker without linking one.
//
//	b, err := localbroker.Start(localbroker.Options{})
//	if err != nil { ... }
//	defer b.Shutdown()
//	fmt.Println(b.URL()) // nats://127.0.0.1:PORT
package localbroker

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/ecsinspect/ecsinspect/fleet/localbroker/spec"
	"github.com/nats-io/nats-server/v2/server"
)

// Options configure a local broker (spec.Options).
type Options = spec.Options

// User is one user of the broker (spec.User).
type User = spec.User

// Broker is a running local broker.
type Broker struct {
	srv  *server.Server
	opts Options
	port int
}

// Start starts a broker on 127.0.0.1 and waits until it takes clients.
func Start(o Options) (*Broker, error) {
	port := o.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	so := &server.Options{Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true, Username: o.User, Password: o.Password, MaxPayload: o.MaxPayload}
	if len(o.Users) > 0 {
		so.Username, so.Password = "", ""
		for _, u := range o.Users {
			p := &server.Permissions{Publish: &server.SubjectPermission{Allow: u.Publish}, Subscribe: &server.SubjectPermission{Allow: u.Subscribe}}
			if u.Replies {
				p.Response = &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute}
			}
			so.Users = append(so.Users, &server.User{Username: u.Name, Password: u.Password, Permissions: p})
		}
	}
	srv, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("local broker: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("local broker: not ready for clients after 10 s")
	}
	u, err := url.Parse(srv.ClientURL())
	if err != nil {
		srv.Shutdown()
		return nil, err
	}
	b := &Broker{srv: srv, opts: o}
	_, _ = fmt.Sscanf(u.Port(), "%d", &b.port)
	return b, nil
}

// URL is the broker's client URL, without credentials.
func (b *Broker) URL() string { return spec.URL(b.port) }

// URLAs is the URL with user's name and password in it.
func (b *Broker) URLAs(u User) string { return spec.URLAs(u, b.port) }

// URLWithCredentials is the URL with the broker's user and password in it.
func (b *Broker) URLWithCredentials() string {
	if b.opts.User == "" {
		return b.URL()
	}
	return fmt.Sprintf("nats://%s:%s@127.0.0.1:%d", url.PathEscape(b.opts.User), url.PathEscape(b.opts.Password), b.port)
}

// Connections is how many clients (games and tools) are connected now.
func (b *Broker) Connections() int { return b.srv.NumClients() }

// Port is the port it listens on.
func (b *Broker) Port() int { return b.port }

// Shutdown stops the broker; its clients lose their connection.
func (b *Broker) Shutdown() {
	b.srv.Shutdown()
	b.srv.WaitForShutdown()
}

// Restart starts a broker again on the same port, as a broker restarted
// by its operator: clients that retry reconnect to it.
func (b *Broker) Restart() error {
	o := b.opts
	o.Port = b.port
	nb, err := Start(o)
	if err != nil {
		return err
	}
	b.srv = nb.srv
	return nil
}
