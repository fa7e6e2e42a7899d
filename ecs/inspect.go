package ecs

// Inspection is the world as tools see it: the inspector's reflection and
// observation API (components and values by id, dynamic edits, scans and
// copies, change ticks, the journal, provenance, the stale-handle audit,
// captures), kept apart from the game's API so a game's autocomplete shows
// what a game calls. Get it with [World.Inspect]; it is a view of the
// world, not a copy, and follows the world's rules (the game goroutine,
// no structural change while a query iterates).
//
//	in := w.Inspect()
//	for _, c := range in.Components() { fmt.Println(c.Name, c.Size) }
//	v, _ := in.Value(e, id)
type Inspection struct{ w *World }

// Inspect returns the world's inspection API.
func (w *World) Inspect() Inspection { return Inspection{w: w} }
