// Package protocol will hold the wire messages between the inspector agent
// and its clients: msgpack codec, length-prefixed framing, handshake, deltas
// and the .ecsrec recording format (issue 4). It never imports package ecs:
// it speaks only in wire types.
package protocol
