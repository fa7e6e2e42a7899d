// Package graves keeps the last state of the entities a game despawned
// most recently: each component's value as it was when the entity went,
// who last wrote and added it, who despawned it and in which frame. The
// agent serves it for a dead handle at once, marked dead, where the world
// itself can only say the slot moved on.
//
// A Yard is told of each despawn by the kernel (ecs.Inspection.OnDespawn)
// on the goroutine that despawns, while the entity is still whole; it
// copies what it keeps there, bounded: at most MaxGraves entities and
// MaxBytes of values (the oldest go first), and at most MaxPerFrame
// entities a frame (a frame that despawns more keeps its first ones and
// counts the rest, so a mass despawn costs a counter per entity).
//
//	yard := graves.New(w, who) // who: the agent's provenance of a component
//	...
//	if g, ok := yard.Find(e); ok {
//		fmt.Println(g.Tick, g.By, len(g.Parts))
//	}
package graves
