package ecs

import "math"

// When and by whom an entity was despawned. A dead slot's record has no
// row, so its row field keeps the frame of the slot's latest despawn (the
// journal's: the frame in progress; low 32 bits, read back against the
// current frame); who despawned
// it is kept per slot only while a tool asks (EnableDeathNotes). A handle
// whose generation is the slot's latest to die reads both back; an older
// one, whose slot has lived and died again since, reads neither.

// noDeathFrame marks a dead record whose despawn nobody saw (a restored
// world's free slots).
const noDeathFrame = math.MaxUint32

// deathNotes keeps, per slot, the actor that despawned it last (+1; 0:
// unknown), while on.
type deathNotes struct {
	on bool
	by []uint16
	// last is told of each entity about to be despawned, while it is
	// still whole (OnDespawn); nil: nobody asks.
	last func(e Entity, frame uint64, by string)
}

// lastLook tells the OnDespawn function of e's despawn, before any of its
// components goes.
func (w *World) lastLook(e Entity) {
	if f := w.deaths.last; f != nil {
		f(e, w.changeFrame(), w.actorName(w.actor))
	}
}

// inspectOnDespawn is [Inspection.OnDespawn].
func (w *World) inspectOnDespawn(f func(e Entity, frame uint64, by string)) { w.deaths.last = f }

// noteDeath records the despawn of slot's entity now, before its record
// is killed.
func (w *World) noteDeath(slot uint32, rec *entityRecord) {
	rec.row = uint32(w.changeFrame())
	if w.deaths.on {
		if int(slot) >= len(w.deaths.by) {
			w.deaths.by = append(w.deaths.by, make([]uint16, int(slot)+1-len(w.deaths.by)+len(w.deaths.by)/2)...)
		}
		w.deaths.by[slot] = w.actor + 1
	}
}

// inspectEnableDeathNotes is [Inspection.EnableDeathNotes].
func (w *World) inspectEnableDeathNotes(on bool) {
	w.deaths.on = on
	if !on {
		w.deaths.by = nil
	}
}

// inspectDeathOf is [Inspection.DeathOf].
func (w *World) inspectDeathOf(e Entity) (frame uint64, by string, ok bool) {
	if e.IsZero() || int(e.index) >= len(w.records) {
		return 0, "", false
	}
	rec := &w.records[e.index]
	last := rec.gen == e.gen+1 || rec.gen == e.gen && e.gen == maxGeneration // e's generation is the one that died last
	if rec.table != deadTable || !last || rec.row == noDeathFrame {
		return 0, "", false
	}
	newest := w.frame + 1 // changeFrame's most
	frame = newest - uint64(uint32(newest)-rec.row)
	if int(e.index) < len(w.deaths.by) && w.deaths.by[e.index] != 0 {
		by = w.actorName(w.deaths.by[e.index] - 1)
	}
	return frame, by, true
}
