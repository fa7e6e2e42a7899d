// Package spec describes a local broker without running one: its options
// and users, and the URLs that reach it. A program that starts the broker
// in another process (ecsinspect fleet runs ecsinspect-broker) imports
// this package, not localbroker, and so links no NATS server.
//
//	o := spec.Options{Port: 4222, Users: []spec.User{{Name: "ui", Password: pw, Subscribe: []string{">"}}}}
//	fmt.Println(spec.URLAs(o.Users[0], 4222)) // nats://ui:...@127.0.0.1:4222
package spec

import (
	"fmt"
	"net/url"
)

// Options configure a local broker.
type Options struct {
	Port     int    `json:"port"`           // 0: a free port
	User     string `json:"user,omitempty"` // with Password: clients must present them
	Password string `json:"password,omitempty"`
	// Users, when set, are the only ones the broker lets in, each with
	// its permissions (User and Password are then ignored).
	Users []User `json:"users,omitempty"`
	// MaxPayload bounds a message (default the server's, 1 MiB).
	MaxPayload int32 `json:"max_payload,omitempty"`
}

// User is one user of the broker: a name, a password, and the subjects
// it may publish and subscribe to (Replies: it may also answer the
// requests it gets).
type User struct {
	Name      string   `json:"name"`
	Password  string   `json:"password"`
	Publish   []string `json:"publish,omitempty"`
	Subscribe []string `json:"subscribe,omitempty"`
	Replies   bool     `json:"replies,omitempty"`
}

// URL is the broker's address on loopback at port.
func URL(port int) string { return fmt.Sprintf("nats://127.0.0.1:%d", port) }

// URLAs is the broker's address at port with u's credentials in it.
func URLAs(u User, port int) string {
	return fmt.Sprintf("nats://%s:%s@127.0.0.1:%d", url.PathEscape(u.Name), url.PathEscape(u.Password), port)
}
