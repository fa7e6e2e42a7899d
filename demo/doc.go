// Package demo runs the demo game, an ecosystem simulated on package ecs
// (see demo/ecosystem), with its inspector agent: the one frame loop that
// `go run ./cmd/demo` and `ecsinspect demo` both use.
//
//	g, err := demo.Start(demo.Options{Entities: 10_000, Hz: 60, Seed: 1, Status: os.Stdout})
//	if err != nil { return err }
//	defer g.Close()
//	err = g.Run(stop) // until stop closes; a panic ends it with ErrPanicked after a post-mortem
package demo
