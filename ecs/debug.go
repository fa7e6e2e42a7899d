package ecs

import (
	"fmt"
	"reflect"
	"unsafe"
)

// The ecsdebug build (go test -tags ecsdebug ./...) checks what the fast
// paths take on trust, at a cost no release build pays (debugChecks is a
// constant, so every check below compiles away without the tag):
//
//   - the unchecked accessors of rawcol.go check their index against the
//     slice's length or capacity, and panic with the index when it is out;
//   - Map.Get runs its slow path too and panics if the fast path found
//     another value or left other change stamps than markWrite would;
//   - a table move that copies bytes checks the ticks it wrote against what
//     colStamps.push would have written;
//   - a pointer-free column taking zero rows without writing them checks
//     that they are zero (see typedColumn.dirty);
//   - the schedule runs a stage's systems one at a time and, after each
//     system that declared its access, panics if it wrote (marked changed)
//     rows of a component it did not declare with Writes: in a release
//     build that undeclared write is a silent data race with the systems the
//     parallel schedule runs beside it. Each run has ticks of its own
//     (writers.go), so the rows it wrote are the rows with newer ticks.

// debugIndex panics when i is not below n: an unchecked access about to
// read or write outside its slice.
func debugIndex(what string, i, n int) {
	if uint(i) >= uint(n) {
		panic(fmt.Sprintf("ecsdebug: %s index %d out of range [0:%d]", what, i, n))
	}
}

// getChecked is Map.Get with the fast path's answer and writes checked
// against the slow path's.
func (m *Map[T]) getChecked(e Entity) *T {
	var fast *T
	var col *typedColumn[T]
	row := -1
	recs := m.w.records
	if uint(e.index) < uint(len(recs)) {
		rec := &recs[e.index]
		if rec.gen == e.gen && uint(rec.table) < uint(len(m.cols.cols)) {
			if c := m.cols.cols[rec.table]; c != nil && !c.t.log.on {
				col, row = c, int(rec.row)
				fast = &c.data[row]
			}
		}
	}
	slow := m.getSlow(e)
	if col == nil {
		return slow
	}
	tick := m.w.writeStamp()
	switch {
	case slow != fast:
		panic(fmt.Sprintf("ecsdebug: Map[%s].Get(%v): the fast path's value is not the slow path's", reflect.TypeFor[T](), e))
	case col.t.effective(row) != tick || col.t.max[row>>groupShift] != tick:
		panic(fmt.Sprintf("ecsdebug: Map[%s].Get(%v): row %d's change stamps are %d (group %d), want %d as the fast path writes",
			reflect.TypeFor[T](), e, row, col.t.effective(row), col.t.max[row>>groupShift], tick))
	}
	return slow
}

// atChecked is Map.At answered by the slow path: Read's answer, and a
// panic where Read has none (an index the world never issued included).
func (m *Map[T]) atChecked(e Entity) *T {
	if m.sparse == nil {
		if p := m.Read(e); p != nil {
			return p
		}
	}
	panic(atFailed)
}

// debugMovedStamps checks the ticks a byte-copying move wrote at row n.
func debugMovedStamps(t *colStamps, n int, changed, added uint32) {
	if t.effective(n) != changed || t.effectiveAdded(n) != added || t.max[n>>groupShift] < changed {
		panic(fmt.Sprintf("ecsdebug: a moved row's ticks are changed %d added %d (group %d), want %d %d as push writes",
			t.effective(n), t.effectiveAdded(n), t.max[n>>groupShift], changed, added))
	}
}

// writtenSince counts, per component, the rows (and sparse entities)
// whose changed tick is newer than since.
func (w *World) writtenSince(since uint32) []int {
	counts := make([]int, len(w.reg.regs))
	for _, t := range w.tables {
		for i, id := range t.ids {
			for r := range t.entities {
				if newer(t.ticks[i].effective(r), since) {
					counts[id]++
				}
			}
		}
	}
	for id, s := range w.sparse {
		if s != nil {
			counts[id] += s.changedSinceCount(since)
		}
	}
	return counts
}

// runChecked runs a system and panics if it wrote a component it did not
// declare (see above).
func (sys *system) runChecked(w *World) *SystemPanic {
	if len(sys.reads)+len(sys.writes) == 0 {
		return sys.runCaught(w) // declares nothing: nothing to check against
	}
	// Writes made before the run carry at most the world's tick plus one;
	// the run's, newer ticks (writers.go).
	since := w.changeStamp.Load() + 1
	if caught := sys.runCaught(w); caught != nil {
		return caught
	}
	for id, n := range w.writtenSince(since) {
		if n == 0 {
			continue
		}
		typ := w.reg.regs[id].info.Type
		declared := false
		for _, wt := range sys.writes {
			declared = declared || wt == typ
		}
		if !declared {
			panic(fmt.Sprintf("ecsdebug: system %q wrote %d rows of %s without declaring it: add ecs.Writes[%s]() (a Read term or Map.Read only reads)",
				sys.name, n, typ, typ))
		}
	}
	return nil
}

// debugZeroRows panics unless n rows of d from row are all zero bytes:
// rows a push takes as zero without writing them.
func debugZeroRows(d *rawCol, row, n int) {
	if d.size == 0 || n <= 0 {
		return
	}
	for i, b := range unsafe.Slice((*byte)(d.at(row)), uintptr(n)*d.size) {
		if b != 0 {
			panic(fmt.Sprintf("ecsdebug: a row past a column's length holds a value (byte %d of row %d): a row left without being cleared", i%int(d.size), row+i/int(d.size)))
		}
	}
}

// checkRelations checks every relation's index against the targets the
// values hold: a whole value assigned through a pointer zeroes the target
// behind the index's back.
func (w *World) checkRelations() {
	for _, ri := range w.relKinds {
		indexed := 0
		for slot, hs := range ri.holders {
			for _, h := range hs {
				r := ri.at(w, h, &w.records[h.index])
				if !w.Alive(h) || r == nil || r.target != (Entity{index: slot, gen: w.records[slot].gen}) {
					panic(fmt.Sprintf("ecsdebug: %v's %s no longer points where its index says (slot %d): a whole value assigned through a pointer? Change a relation's target with Rel.SetTarget", h, ri.short, slot))
				}
				if tb := w.tables[w.records[h.index].table]; w.aimMask.Has(ri.id) && tb.target(ri.id) != r.target {
					panic(fmt.Sprintf("ecsdebug: %v's %s points at %v from a table aimed at %v", h, ri.short, r.target, tb.target(ri.id)))
				}
				indexed++
			}
		}
		held := 0
		if s := w.sparse[ri.id]; s != nil {
			held = s.length()
		} else {
			for _, t := range w.tables {
				if t.mask.Has(ri.id) {
					held += t.len()
				}
			}
		}
		if held != indexed {
			panic(fmt.Sprintf("ecsdebug: %d entities hold %s and its index lists %d", held, ri.short, indexed))
		}
	}
}
