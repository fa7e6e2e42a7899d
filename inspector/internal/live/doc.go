// Package live is the agent's side of the query language on the live
// world: expressions compiled against the world's components (Compile),
// pages answered on the game goroutine by the kernel's window when its
// tests are the whole query, else from a copy evaluated off the game
// goroutine by the same plan a recording is evaluated by (Page,
// CopyQuery); one live entity tested (Holds, for watchpoints); and the
// whole world copied for a snapshot (CopyAll, BuildSnapshot).
//
//	lw := live.New(world, schemas, tick)
//	q, err := lw.Compile("Energy.Value<10", "-Energy.Value", since)
//	frame, err := lw.Page(id, q, 0, 100) // built on the client's writer
package live
