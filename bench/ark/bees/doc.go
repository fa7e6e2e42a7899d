// Package bees runs arche-demo's bees (github.com/mlange-42/arche-demo,
// its systems without drawing and the mouse) on arche v0.15 as the demo
// writes them, and on ecsinspect's kernel as PORTING.md says to port them
// (HomeHive a relation, state switches by Exchange, the per-hive queries
// over the relation's target), in the same loop:
//
//	go test -run '^$' -bench Bees -benchtime 200x
//
// mode=direct switches states at once, as the original does;
// mode=schedule runs the systems in a Schedule that queues the switches
// and applies each system's as it ends (CommandsNow). x-arche is our time
// over arche's for the same ticks.
package bees
