package main

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strings"

	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/fleet/localbroker/spec"
)

// The local fleet's security: a broker user for each game, which may
// speak only for its instance, a user for each client, which may open
// only its own sessions (fleet.GamePermissions, fleet.ClientPermissions),
// and one token for the fleet.

// fleetAuth is the users and the token of a local fleet.
type fleetAuth struct {
	prefix  string
	token   string
	order   []string // the games' instances, as made
	games   map[string]spec.User
	clients []spec.User
}

// newFleetAuth makes users with random passwords for instances and
// clients, and a random fleet token.
func newFleetAuth(prefix string, instances, clients []string) (*fleetAuth, error) {
	if len(clients) == 0 {
		return nil, fmt.Errorf("--clients: want at least one client name")
	}
	a := &fleetAuth{prefix: prefix, token: secret(), games: map[string]spec.User{}}
	for _, name := range instances {
		if err := fleet.CheckName("instance", name, false); err != nil {
			return nil, err
		}
		if _, dup := a.games[name]; dup {
			return nil, fmt.Errorf("instance %s named twice", name)
		}
		a.games[name] = brokerUser("game-"+name, fleet.GamePermissions(prefix, name))
		a.order = append(a.order, name)
	}
	for _, name := range clients {
		if err := fleet.CheckName("client", name, false); err != nil {
			return nil, err
		}
		a.clients = append(a.clients, brokerUser(name, fleet.ClientPermissions(prefix, name)))
	}
	return a, nil
}

// brokerUser is a user with a random password and p's permissions.
func brokerUser(name string, p fleet.Permissions) spec.User {
	return spec.User{Name: name, Password: secret(), Publish: p.Publish, Subscribe: p.Subscribe, Replies: p.Replies}
}

// users is every user, games first.
func (a *fleetAuth) users() []spec.User {
	var out []spec.User
	for _, name := range a.order {
		out = append(out, a.games[name])
	}
	return append(out, a.clients...)
}

// natsConfig is an authorization block for nats-server with the same
// users, passwords and permissions.
func (a *fleetAuth) natsConfig() string {
	var b strings.Builder
	b.WriteString("# ecsinspect fleet: one user per game instance, one per client (docs/FLEET.md)\n")
	fmt.Fprintf(&b, "# fleet token for games (Options.Token) and clients (--token): %s\n", a.token)
	b.WriteString("authorization {\n  users = [\n")
	for _, u := range a.users() {
		fmt.Fprintf(&b, "    { user: %q, password: %q, permissions: {\n", u.Name, u.Password)
		fmt.Fprintf(&b, "        publish: { allow: %s }\n", quoteList(u.Publish))
		fmt.Fprintf(&b, "        subscribe: { allow: %s }\n", quoteList(u.Subscribe))
		if u.Replies {
			b.WriteString("        allow_responses: { max: 1, expires: \"1m\" }\n")
		}
		b.WriteString("    } }\n")
	}
	b.WriteString("  ]\n}\n")
	return b.String()
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// secret is 20 random bytes as lower-case base32: a password or a token.
func secret() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// splitNames splits a comma-separated list, dropping empty names.
func splitNames(s string) []string {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}
