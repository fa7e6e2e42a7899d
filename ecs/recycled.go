package ecs

import (
	"math"
	"sort"
)

// MaxRecycledKept is how many of the most reused slots the world keeps up
// to date as it frees slots once asked (what [Inspection.MostRecycled]
// answers without a scan after its first call).
const MaxRecycledKept = 8

// recycledTop is the slots with the highest generations, kept as slots are
// freed once someone asked for them (an agent does at its first summary):
// a freed slot whose generation is over the lowest kept takes its place.
// One compare per free in the common case; before the first ask, the
// floor is above every generation, so the compare is all there is, and
// the first ask reads every slot once (kept).
type recycledTop struct {
	slots [MaxRecycledKept]uint32
	gens  [MaxRecycledKept]uint32 // 0: an empty place
	floor uint32                  // the lowest generation kept (0 while places are empty); notKept before the first ask
}

// notKept is the floor of a list not kept yet: no generation is over it.
const notKept = math.MaxUint32

// kept reports whether the list is kept (asked for once).
func (r *recycledTop) kept() bool { return r.floor != notKept }

// note records that slot reached generation gen.
func (r *recycledTop) note(slot, gen uint32) {
	if gen <= r.floor || gen < 2 {
		return
	}
	low := 0
	for i := range r.gens {
		if r.gens[i] != 0 && r.slots[i] == slot {
			r.gens[i] = gen
			r.refloor()
			return
		}
		if r.gens[i] < r.gens[low] {
			low = i
		}
	}
	r.slots[low], r.gens[low] = slot, gen
	r.refloor()
}

func (r *recycledTop) refloor() {
	r.floor = r.gens[0]
	for _, g := range r.gens[1:] {
		r.floor = min(r.floor, g)
	}
}

// list returns the k highest, most first, ties by slot, reading every
// slot the first time.
func (r *recycledTop) list(w *World, k int) []SlotInfo {
	if !r.kept() {
		r.rebuild(w)
	}
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

// rebuild refills the list from every slot (the first ask, a restore).
func (r *recycledTop) rebuild(w *World) {
	*r = recycledTop{}
	for i := range w.records {
		r.note(uint32(i), w.records[i].gen)
	}
}
