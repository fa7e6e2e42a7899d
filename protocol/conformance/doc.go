// Package conformance holds the protocol's conformance suite: the
// statements of PROTOCOL.md, each run against a real agent over a real
// socket by a client that knows no Go type of ours. The client encodes and
// decodes with msgpack's generic maps only, so a struct tag that disagrees
// with the document fails here, as it would for a third party's client.
//
//	go test ./protocol/conformance
//
// Each case quotes the line of PROTOCOL.md it checks. A test also checks
// that every error code the document lists is produced by some case.
//
// The document client (docclient_test.go) goes further: it rebuilds what
// the agent streams as the document says, with no code of the protocol
// package (S2 and zstd, row sets, XOR and byte planes of world frames; the
// allocator's free list; each frame's journal; recordings read by their
// index; snapshots; page and summary deltas), while a game churns, and
// holds the result to what the agent answers directly (GetEntity, Query,
// Spawn, a fresh summary).
package conformance
