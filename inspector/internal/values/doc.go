// Package values turns what a game holds into what the wire carries, for
// every part of the agent: Go values of components, events and resources
// into protocol values (cut to MaxItems per list for frames, Whole for
// snapshots and recordings), component layouts into schemas, entity
// handles both ways, the structural journal into wire entries; and the
// copies that let a value be converted off the game goroutine (PlainCopy,
// Clone) without reading memory the game is changing.
//
//	v := values.Of(reflect.ValueOf(pos)) // {X:1 Y:2}
//	id := values.Handle(e)                 // the wire's 42v3
package values
