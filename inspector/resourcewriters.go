package inspector

import (
	"reflect"
	"slices"
	"strings"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Who changed each part of the resources (internal/resourcewrites): while
// a client is attached, the resources a system declares it writes (every
// resource, after a system that declared nothing) are compared as it
// ends, the game's own code's changes before the frame's systems and at
// Sync, and a client's edits as each is applied. With nobody attached
// nothing is compared (a grid of handles costs a comparison of its memory
// after every system that writes it); looking again starts from fresh
// copies, so a change made meanwhile is never pinned on the next writer.

// lookAtResourcesNow decides, at Sync, whether resources are looked at
// this frame, and looks at what the game's code changed since the last
// system.
func (a *Agent) lookAtResourcesNow() {
	on := a.srv.Clients() > 0
	if !on {
		a.resLooking = false
		return
	}
	if !a.resLooking {
		a.resWrites.Fresh()
		a.resLooking = true
	}
	a.resWrites.Refresh()
	a.lookAtResources(outsideSchedule, a.w.Frame(), nil)
}

// editedBy notes that a client changed the world in this Sync: the
// resources are looked at once the Sync's requests are applied, not after
// each (a client's flood of edits would cost a comparison of every
// tracked resource each).
func (a *Agent) editedBy(actor string) {
	if !slices.Contains(a.resEditors, actor) {
		a.resEditors = append(a.resEditors, actor)
	}
}

// lookAfterEdits marks what the Sync's edits changed as their clients',
// named together where several edited ("client 3 (ui) or client 4 (cli)").
func (a *Agent) lookAfterEdits() {
	if len(a.resEditors) == 0 {
		return
	}
	a.lookAtResources(strings.Join(a.resEditors, " or "), a.w.Frame(), nil)
	a.resEditors = a.resEditors[:0]
}

// outsideSchedule is the writer of a change made by the game's own code,
// as the kernel names it.
const outsideSchedule = "outside the schedule"

// lookAtResources compares the resources of the types given (nil: all)
// and marks what changed as by's in frame tick, while a client looks.
func (a *Agent) lookAtResources(by string, tick uint64, types []reflect.Type) {
	if a.resLooking {
		a.resMu.Lock() // systems of a parallel stage end on their workers
		defer a.resMu.Unlock()
		a.resWrites.Look(by, tick, types)
	}
}

// resourceWriter is who last changed the item of resource a handle scan
// found at path, while resources are looked at.
func (a *Agent) resourceWriter(resource string, path []ecs.HandleStep) *protocol.Provenance {
	if !a.resLooking {
		return nil
	}
	return a.resWrites.WriterOf(resource, path)
}

// pageWriters are who last changed the value at path in resource (a
// struct or not) and each of its children keys, for a page of it.
func (a *Agent) pageWriters(resource string, isStruct bool, path string, keys []string) (own *protocol.Provenance, items []*protocol.Provenance) {
	if !a.resLooking {
		return nil, nil
	}
	steps, err := protocol.ParsePath(path)
	if err != nil {
		return nil, nil
	}
	own = a.resWrites.WriterAt(resource, steps)
	keyed := len(steps) > 0 || !isStruct // a struct resource's children are fields
	for i, k := range keys {
		step := protocol.PathStep{Name: k}
		if keyed {
			step = protocol.PathStep{Key: k, Keyed: true}
		}
		child := append(steps[:len(steps):len(steps)], step)
		if w := a.resWrites.WriterAt(resource, child); w != nil {
			if items == nil {
				items = make([]*protocol.Provenance, len(keys))
			}
			items[i] = w
		}
	}
	return own, items
}
