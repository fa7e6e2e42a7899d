// Package protocol is the wire between the inspector agent in a game and
// its clients: typed messages encoded as msgpack, one per length-prefixed
// frame, a handshake, and the world stream's frames. It speaks only in wire
// types and never imports package ecs. PROTOCOL.md beside this file is the
// specification. The query language is package query beside it; the
// .ecsrec recording format and the world rebuilt from frames (a recording's,
// or a world stream's) are package recording.
//
//	c := protocol.NewConn(netConn)
//	welcome, err := protocol.ClientHandshake(c, protocol.Hello{Client: "me"}, 5*time.Second)
//	err = c.Send(&protocol.Subscribe{ID: 1, What: protocol.SubSummary, Hz: 10})
//	msg, err := c.Receive() // *protocol.Summary, *protocol.Reply, ...
//
// Decoding is defensive: a frame longer than the negotiated limit is refused
// before it is read, and every length a message declares is checked against
// the bytes that are really there before the msgpack decoder sees them.
package protocol

//go:generate go run ../internal/sharedgen
