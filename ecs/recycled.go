package ecs

import (
	"math"
	"sort"
)

// MaxRecycledKept is how many of the most reused slots the world keeps up
// to date as it frees slots (what [Inspection.MostRecycled] answers
// without a scan).
const MaxRecycledKept = 8

// recycledTop is the slots with the highest generations, kept as slots are
// freed: a freed slot whose generation is over the lowest kept takes its
// place. One compare per free in the common case.
type recycledTop struct {
	slots [MaxRecycledKept]uint32
	gens  [MaxRecycledKept]uint32 // 0: an empty place
	floor uint32                  // the lowest generation kept (0 while places are empty)
}

// note records that slot reached generation gen, in one pass over the
// places: the slot's own if kept, else the lowest (the first of equals);
// the new floor is the lowest left, found in the same pass.
func (r *recycledTop) note(slot, gen uint32) {
	if gen <= r.floor || gen < 2 {
		return
	}
	at, low := -1, 0
	lowest, next := r.gens[0], uint32(math.MaxUint32) // the lowest generation and the next one up (equal if repeated)
	for i, g := range r.gens {
		if at < 0 && g != 0 && r.slots[i] == slot {
			at = i
		}
		switch {
		case i == 0:
		case g < lowest:
			next, lowest, low = lowest, g, i
		case g < next:
			next = g
		}
	}
	if at < 0 {
		at = low
	}
	r.slots[at], r.gens[at] = slot, gen
	if at == low {
		r.floor = min(next, gen)
	} else {
		r.floor = lowest
	}
}

// list returns the k highest, most first, ties by slot.
func (r *recycledTop) list(w *World, k int) []SlotInfo {
	var out []SlotInfo
	for i, g := range r.gens {
		if g != 0 {
			rec := &w.records[r.slots[i]]
			out = append(out, SlotInfo{Index: r.slots[i], Generation: rec.gen, Alive: rec.table != deadTable})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Generation != out[j].Generation {
			return out[i].Generation > out[j].Generation
		}
		return out[i].Index < out[j].Index
	})
	return out[:min(k, len(out))]
}

// rebuild refills the list from every slot (after a restore).
func (r *recycledTop) rebuild(w *World) {
	*r = recycledTop{}
	for i := range w.records {
		r.note(uint32(i), w.records[i].gen)
	}
}
