// Command ecsinspect attaches to games built on package ecs: a terminal
// UI on a live game or a recording, and commands for scripts.
//
//	go run ./cmd/ecsinspect demo                     # the demo ecosystem with the UI on it
//	go run ./cmd/ecsinspect attach 127.0.0.1:7777    # the UI on a running game
//	go run ./cmd/ecsinspect record ADDR -o run.ecsrec
//	go run ./cmd/ecsinspect open run.ecsrec          # review: every entity at every recorded tick
//	go run ./cmd/ecsinspect dump ADDR|FILE [--tick T] [--query Q] [--entity E] [--diff T1 T2] [--json]
//	go run ./cmd/ecsinspect exec ADDR pause|resume|step N|set|add|remove|parent|despawn|spawn ...
//
// The UI lives in package ui, what the UI and the commands share as
// clients in package client; this package is the command line.
package main
