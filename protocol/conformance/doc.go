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
package conformance
