// Package resourcewrites keeps who last changed each part of a game's
// resources. The kernel stamps a component's rows as systems write them;
// a resource is plain memory behind a pointer, so the only way to know who
// changed it is to look: after a system that declared it writes the
// resource (or declared nothing) ends, its parts are compared with a copy
// taken at the last look, and each element that differs is marked with
// that system and frame.
//
// A part is memory without pointers the tracker can compare as bytes: the
// resource itself, each field of a resource struct, or the items of a
// slice or array field whose items hold no pointers (a tile map, a
// collision grid of handles). Maps, pointers and interfaces are not
// tracked; a part or resource over its byte bound is named as not tracked,
// with why.
//
//	t := resourcewrites.New(w)
//	t.Look("move", tick, run.WriteTypes) // after each system's run
//	if p := t.WriterOf("Grid", []ecs.HandleStep{{Name: "Cells"}, {Index: 812}}); p != nil {
//		fmt.Println(p.By, p.Tick)
//	}
//
// Looking costs a comparison of the tracked bytes (a few microseconds for
// a 128 KiB grid), so the agent looks only while someone is attached; a
// look after a pause takes a fresh copy and marks nothing, so a change
// made while nobody looked is never pinned on the next system to run.
package resourcewrites
