package inspector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// One entity's detail: its components with who wrote and added them, or
// why it is gone.

// detail captures one entity, its children from the offset-th on
// (protocol.MaxDetailChildren at most).
func (a *Agent) detail(id uint32, e ecs.Entity, offset int) *protocol.Detail {
	d := &protocol.Detail{Sub: id, Tick: a.tick(), Entity: values.Handle(e)}
	arch, row, ok := a.w.Inspect().Location(e)
	if !ok {
		d.Reason = strings.TrimPrefix(deadReason(a.w, e), "ecs: ") + a.despawnNote(e)
		a.lastState(d, e)
		return d
	}
	d.Alive, d.Archetype, d.Row = true, arch, row
	if p, ok := a.w.Parent(e); ok {
		d.Parent = values.Handle(p)
	}
	kids := a.children.Holders(e) // the world's own list: read here, not kept
	d.ChildCount = len(kids)
	for _, k := range kids[min(max(offset, 0), len(kids)):min(max(offset, 0)+protocol.MaxDetailChildren, len(kids))] {
		d.Children = append(d.Children, values.Handle(k))
	}
	childOf := ecs.ComponentIDOf[ecs.ChildOf](a.w)
	for _, h := range a.w.Inspect().HeldBy(e) { // the relations that point at it, kind by kind
		if h.Kind == childOf {
			continue // its children, above
		}
		holders, _ := a.w.Inspect().Holders(e, h.Kind, offset, protocol.MaxDetailChildren)
		d.HeldBy = append(d.HeldBy, protocol.HeldBy{Kind: h.Name, Count: h.Count, Holders: values.Handles(holders)})
	}
	for _, cid := range a.w.Inspect().ComponentsOf(e) {
		v, _ := a.w.Inspect().Value(e, cid)
		cv := protocol.ComponentValue{Component: a.w.Inspect().Component(cid).Short, Value: values.Of(v)}
		cv.Written, cv.Added, cv.Restored = a.whoWrote(e, cid)
		d.Components = append(d.Components, cv)
	}
	return d
}

// whoWrote is who last wrote and who added e's component id, and the
// rewind that put its value back if it is as that rewind left it.
func (a *Agent) whoWrote(e ecs.Entity, id ecs.ComponentID) (written, added, restored *protocol.Provenance) {
	wm, am, ok := a.w.Inspect().Marks(e, id)
	if !ok {
		return nil, nil, nil
	}
	written, added = a.whoMarked(e, id, wm, am)
	if a.restore.marked(wm) { // as the rewind put it, not written since
		at := a.restore.at
		restored = &at
	}
	if seen := a.seenWriter(e, id); seen != nil {
		written = seen
	}
	return written, added, restored
}

// lastState fills the detail of e, dead, with its last state if the
// graves keep it: its components as its despawn found them, who wrote
// them, and who despawned it (Died).
func (a *Agent) lastState(d *protocol.Detail, e ecs.Entity) {
	g, ok := a.graves.Find(e)
	if !ok {
		return
	}
	g.Into(d)
}

// despawnNote says who despawned the entity e named, and when, if the
// kernel's death notes or the journal still hold it: "; despawned at tick
// 812 by hunting".
func (a *Agent) despawnNote(e ecs.Entity) string {
	if frame, by, ok := a.w.Inspect().DeathOf(e); ok && by != "" {
		return fmt.Sprintf("; despawned at tick %d by %s", frame, by)
	}
	for _, j := range slices.Backward(a.w.Inspect().Journal()) {
		if j.Entity == e && j.Op == ecs.OpDespawn {
			return fmt.Sprintf("; despawned at tick %d by %s", j.Frame, j.System)
		}
	}
	return ""
}

// deadReason says why e is not alive, in the kernel's words.
func deadReason(w *ecs.World, e ecs.Entity) string {
	if err := w.CheckAlive(e); err != nil {
		return err.Error()
	}
	return "entity " + e.String() + " is alive"
}
