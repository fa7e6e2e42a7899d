// Command ecsinspect attaches to games built on package ecs.
//
// Today it runs the kernel demo: a small ecosystem simulated on package ecs,
// with a status line each second:
//
//	go run ./cmd/ecsinspect demo [--entities N] [--hz H] [--frames N]
//	go run ./cmd/ecsinspect --version
//
// The terminal UI (attach, open, record, dump, exec) arrives with the
// protocol and inspector agent.
package main
