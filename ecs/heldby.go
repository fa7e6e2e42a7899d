package ecs

// A relation's target, seen from its side: which kinds of relation point
// at it, how many holders each, and a page of them (what a tool shows of
// a hive its bees point at through HomeHive).

// HeldBy is one relation kind's holders of a target.
type HeldBy struct {
	Kind  ComponentID // the relation's component
	Name  string      // its short name
	Count int         // the entities whose relation of this kind points at the target
}

// inspectHeldBy is [Inspection.HeldBy].
func (w *World) inspectHeldBy(target Entity) []HeldBy {
	rec, ok := w.record(target)
	if !ok || rec.flags&flagTarget == 0 {
		return nil
	}
	var out []HeldBy
	for _, ri := range w.relKinds {
		if n := len(ri.holders[target.index]); n > 0 {
			out = append(out, HeldBy{Kind: ri.id, Name: ri.short, Count: n})
		}
	}
	return out
}

// inspectHolders is [Inspection.Holders].
func (w *World) inspectHolders(target Entity, kind ComponentID, offset, limit int) ([]Entity, int) {
	ri := w.relation(kind)
	if ri == nil || !w.Alive(target) {
		return nil, 0
	}
	hs := ri.holders[target.index]
	page := NewPager(offset, limit)
	return page.take(nil, hs), page.Total()
}
