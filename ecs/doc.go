// Package ecs is an entity-component-system: entities are generational
// handles, components are plain Go structs, and systems are loops over
// queries. It imports only the standard library.
//
// Components live in archetype tables, one contiguous column per component
// type, or, for types toggled often, in sparse sets that never move rows.
// Queries are typed, cached and allocation-free; they filter With, Without,
// Optional, Changed and Added, and change detection is exact to the row at no
// per-entity cost (see stamps.go for how). A Changed query visits only the
// rows written since its previous run, found in a per-column log rather than
// by a scan (changelog.go).
//
//	type Position struct{ X, Y float64 }
//	type Velocity struct{ X, Y float64 }
//
//	w := ecs.NewWorld()
//	spawn := ecs.NewMap2[Position, Velocity](w)
//	e := spawn.Spawn(Position{}, Velocity{X: 1})
//
//	move := ecs.NewQuery2[Position, Velocity](w, ecs.Mut[Position]())
//	it := move.Iter()
//	for it.Next() {
//		p, v := it.Get()
//		p.X += v.X
//	}
//
// Structural changes (spawn, despawn, add, remove) while a query iterates
// panic with a message naming the fix; nothing is ever corrupted.
//
// # Outline
//
//   - [World]: entities (Spawn, Despawn, Alive, SpawnIDs for any width),
//     relations (SetParent, Children, DespawnRecursive), the frame (Tick),
//     save and load (Image, Restore).
//   - Batch operations over a [Filter]: [World.DespawnWhere],
//     [World.AddWhere], [World.RemoveWhere], [World.ExchangeWhere],
//     [Map.AddWhere]: whole tables at a time, with the outcome of the
//     single operations.
//   - [Map], [Map2] to [Map8]: one entity's components by handle (Get marks
//     them written, Read does not; ReadAll reads a list; At reads with no
//     call, for handles known alive), Add, Remove, batch spawns.
//   - [Query1] to [Query8] with [Term]s (With, Without, Optional, Mut,
//     Changed, Added): the systems' loops, by entity (Iter, All) or by
//     column (NextTable, Columns).
//   - [Commands]: structural changes queued while queries iterate,
//     applied at the end of a stage.
//   - [Events], [Resource]: double-buffered event queues; one value per type.
//   - [Schedule]: systems in stages with declared access (Reads, Writes),
//     run in parallel where the access allows, each timed.
//   - [Inspection] (w.Inspect()): what tools use, kept out of the game's
//     way: components and values by id, dynamic edits, scans and copies,
//     change stamps, the journal, who wrote what, the stale-handle audit.
package ecs

//go:generate go run ./internal/gen
