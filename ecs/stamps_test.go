package ecs

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestBatchSpawnStampsChunks: a batch spawn gives the chunks it fills whole
// a changed and an added stamp instead of a tick per row (stamps.go). The
// stamped rows must look exactly like rows with their own ticks when a
// query filters them, when one fills a hole in a stamped chunk, and when
// one moves to another table; and the ticks left in the slots by earlier
// rows must not count.
func TestBatchSpawnStampsChunks(t *testing.T) {
	w := NewWorld()
	m := NewMap2[Position, Health](w)
	vel := NewMap[Velocity](w)
	added := NewQuery1[Health](w, Added[Health]())
	late := NewQuery1[Health](w, Added[Health]()) // first runs after the hole
	// Two tick filters: this query scans, so the columns keep no change
	// logs, and batch spawns stamp.
	changed := NewQuery1[Health](w, Changed[Health](), Changed[Position]())
	run := changedEntities[Health]
	batch := func(n int) []Entity {
		var out []Entity
		m.SpawnBatch(n, func(_ int, e Entity, _ *Position, _ *Health) { out = append(out, e) })
		slices.SortFunc(out, compareEntities)
		return out
	}
	expect := func(what string, got, want []Entity) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d entities %v, want %d", what, len(got), got, len(want))
		}
	}

	first := batch(128) // chunks 0 and 1, stamped
	expect("added, first batch", run(added), first)
	expect("changed, first batch", run(changed), first)
	second := batch(64) // chunk 2, stamped
	// Row 0 empties, and the table's last row (chunk 2) fills it: chunk
	// 0's stamp is folded into its rows first, and the filler keeps its own.
	if err := w.Despawn(first[0]); err != nil {
		t.Fatal(err)
	}
	// Stamped rows move to another table with their stamps' ticks (the
	// first moves grow the new table; later ones take the byte path).
	for _, e := range second[5:13] {
		if err := vel.Add(e, Velocity{}); err != nil {
			t.Fatal(err)
		}
	}
	expect("added, second batch after a hole and a move", run(added), second)
	expect("changed, second batch after a hole and a move", run(changed), second)
	expect("added, nothing new", run(added), nil)
	// late never ran: every live entity was added since, including the
	// rows of chunk 0, whose stamps were folded in when the hole was filled.
	live := slices.SortedFunc(slices.Values(append(slices.Clone(first[1:]), second...)), compareEntities)
	expect("added, first run of another query", run(late), live)

	// Unaligned: 10 rows per row, then whole chunks, then a tail.
	for i, e := range append(first, second...) {
		err := w.Despawn(e)
		if (i == 0) != (err != nil) { // first[0] is gone already: refused
			t.Fatalf("despawn %v (the %dth): %v", e, i, err)
		}
	}
	w.Tick()
	expect("added, after despawning all", run(added), nil)
	third := batch(10)
	fourth := batch(200) // rows 10..209: per row to 63, stamps 64..191, per row after
	both := slices.SortedFunc(slices.Values(append(slices.Clone(third), fourth...)), compareEntities)
	expect("added, unaligned batches", run(added), both)
	expect("changed, unaligned batches", run(changed), both)
	p, h := m.Get(fourth[100]) // in a stamped chunk: its row ticks go past the stamp
	p.X, h.HP = 1, 1
	expect("changed, one write", run(changed), []Entity{fourth[100]})
	expect("added, nothing new after a write", run(added), nil)
}

// TestColumnStampsMatchAPlainModel drives one column's change stamps (rows pushed
// one at a time and in batches, writes of one row and of ranges that stamp
// whole chunks, swap-removes, clears, rows appended from another column)
// against a plain list of each row's changed and added ticks: every row's
// changedSince, addedSince and the scan's nextChanged agree with the list
// for every tick since which a query may ask.
func TestColumnStampsMatchAPlainModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		col, other := colStamps{on: true}, colStamps{on: true}
		type pair struct{ changed, added uint32 }
		var model, otherModel []pair
		tick := uint32(1)
		next := func() uint32 { tick++; return tick }
		for range rapid.IntRange(1, 60).Draw(rt, "ops") {
			switch rapid.IntRange(0, 7).Draw(rt, "op") {
			case 0:
				tk := next()
				col.push(tk, tk)
				model = append(model, pair{tk, tk})
			case 1:
				n, tk := rapid.IntRange(1, 200).Draw(rt, "n"), next()
				col.pushN(n, tk)
				for range n {
					model = append(model, pair{tk, tk})
				}
			case 2:
				if len(model) > 0 {
					r, tk := rapid.IntRange(0, len(model)-1).Draw(rt, "row"), next()
					col.markWrite(r, tk)
					model[r].changed = tk
				}
			case 3:
				if len(model) > 0 {
					lo := rapid.IntRange(0, len(model)-1).Draw(rt, "lo")
					hi := rapid.IntRange(lo, len(model)).Draw(rt, "hi")
					tk := next()
					col.markRows(lo, hi, tk)
					for r := lo; r < hi; r++ {
						model[r].changed = tk
					}
				}
			case 4:
				if len(model) > 0 {
					r := rapid.IntRange(0, len(model)-1).Draw(rt, "removed")
					col.swapRemove(r)
					model[r] = model[len(model)-1]
					model = model[:len(model)-1]
				}
			case 5:
				if rapid.IntRange(0, 3).Draw(rt, "clear") == 0 {
					col.clearRows()
					model = model[:0]
				}
			case 6:
				n, tk := rapid.IntRange(1, 100).Draw(rt, "other"), next()
				other.pushN(n, tk)
				for range n {
					otherModel = append(otherModel, pair{tk, tk})
				}
				if rapid.Bool().Draw(rt, "stampOther") {
					tk := next()
					other.markRows(0, len(otherModel), tk)
					for i := range otherModel {
						otherModel[i].changed = tk
					}
				}
			case 7:
				if len(otherModel) > 0 {
					n := rapid.IntRange(1, len(otherModel)).Draw(rt, "moved")
					col.appendRows(&other, n)
					model = append(model, otherModel[:n]...)
					other.clearRows()
					otherModel = otherModel[:0]
				}
			}
			if len(col.rows) != len(model) {
				t.Fatalf("%d rows, the model %d", len(col.rows), len(model))
			}
			for since := uint32(0); since <= tick; since++ {
				first := len(model)
				for r, p := range model {
					if col.changedSince(r, since) != newer(p.changed, since) {
						t.Fatalf("row %d changed since %d: %v, the model's tick %d", r, since, col.changedSince(r, since), p.changed)
					}
					if col.addedSince(r, since) != newer(p.added, since) {
						t.Fatalf("row %d added since %d: %v, the model's tick %d", r, since, col.addedSince(r, since), p.added)
					}
					if first == len(model) && newer(p.changed, since) {
						first = r
					}
				}
				if got := col.nextChanged(0, len(model), since); got != first {
					t.Fatalf("the first row changed since %d: %d, the model's %d", since, got, first)
				}
			}
		}
	})
}

// TestNewerWrapsAround: ticks compare across the uint32 wrap.
func TestNewerWrapsAround(t *testing.T) {
	for _, c := range []struct {
		a, b uint32
		want bool
	}{{2, 1, true}, {1, 2, false}, {1, 1, false}, {0, ^uint32(0), true}, {5, ^uint32(0) - 3, true}, {^uint32(0), 0, false}} {
		if newer(c.a, c.b) != c.want || (newerBit(c.a, c.b) == 1) != c.want {
			t.Errorf("newer(%d, %d) = %v, bit %d; want %v", c.a, c.b, newer(c.a, c.b), newerBit(c.a, c.b), c.want)
		}
		want := c.a
		if newer(c.b, c.a) {
			want = c.b
		}
		if newest(c.a, c.b) != want {
			t.Errorf("newest(%d, %d) = %d, want %d", c.a, c.b, newest(c.a, c.b), want)
		}
	}
}

// A despawn fills its hole with the last row. A hole in a chunk whose stamps
// (a batch spawn's) are no newer than the filler's needs no fold; a chunk
// stamp newer than either of the filler's stamps must be folded first, or
// it passes for the filler's: here a row added long before the batch but
// written after it.
func TestFillingAHoleKeepsTheFillersStamps(t *testing.T) {
	const before, batch, written = 5, 10, 20
	for _, c := range []struct {
		name           string
		changed, added uint32
	}{
		{"a row of the batch", batch, batch},
		{"written after the batch, added before it", written, before},
		{"added and written before the batch", before, before},
	} {
		s := colStamps{on: true}
		s.pushN(chunkRows, batch)
		s.push(c.changed, c.added)
		s.swapRemove(0)
		if got, got2 := s.effective(0), s.effectiveAdded(0); got != c.changed || got2 != c.added {
			t.Errorf("%s: the filled hole reads changed %d added %d, want %d %d", c.name, got, got2, c.changed, c.added)
		}
		for r := 1; r < chunkRows; r++ {
			if got, got2 := s.effective(r), s.effectiveAdded(r); got != batch || got2 != batch {
				t.Fatalf("%s: row %d of the batch reads changed %d added %d, want %d %d", c.name, r, got, got2, batch, batch)
			}
		}
	}
}

// Rows of a batch spawn keep the batch's stamps in their chunks, not row by
// row; a despawn moving one into another's hole reads and writes no row
// stamps while both hold the chunks' (chunkOnly). A row of the batch
// written since holds its own: as the filler, and as the hole.
func TestFillingAHoleOfABatch(t *testing.T) {
	const batch, written = 10, 20
	for _, c := range []struct {
		name               string
		write              int // the row written after the batch
		wantChanged        uint32
		wantOtherInTheHole uint32 // row 1, untouched
	}{
		{"the filler written", 2*chunkRows - 1, written, batch},
		{"the hole written", 0, batch, batch},
	} {
		s := colStamps{on: true}
		s.pushN(2*chunkRows, batch)
		s.markRow(c.write, written)
		s.swapRemove(0)
		if got, got2 := s.effective(0), s.effectiveAdded(0); got != c.wantChanged || got2 != batch {
			t.Errorf("%s: the filled hole reads changed %d added %d, want %d %d", c.name, got, got2, c.wantChanged, batch)
		}
		if got := s.effective(1); got != c.wantOtherInTheHole {
			t.Errorf("%s: row 1 reads changed %d, want %d", c.name, got, c.wantOtherInTheHole)
		}
	}
}

// The same at the world, through the despawn's byte path: a batch
// despawned one by one from its first entity, one entity written after
// the batch; after each despawn exactly that one reads as changed since
// the batch, wherever it moved.
func TestDespawningABatchKeepsWhatChanged(t *testing.T) {
	type pos struct{ X, Y float64 }
	w := NewWorld()
	m := NewMap[pos](w)
	var ents []Entity
	m.SpawnBatch(3*chunkRows, func(_ int, e Entity, _ *pos) { ents = append(ents, e) })
	since := w.Inspect().NextStamp()
	written := ents[len(ents)-5]
	m.Get(written).X = 1
	id := ComponentIDOf[pos](w)
	for i, e := range ents[:len(ents)-10] {
		must(t, w.Despawn(e))
		for _, alive := range ents[i+1:] {
			if got := w.Inspect().ChangedSince(alive, id, since); got != (alive == written) {
				t.Fatalf("after %d despawns, %v changed since the batch: %v, want %v", i+1, alive, got, alive == written)
			}
		}
	}
}

// Two batches, their chunks stamped at two ticks: a despawn filling a hole
// of the first with a row of the second must give the hole the second's
// stamps. After a query run writing every row, the chunks' changed stamps
// are the run's and agree, their added stamps still the batches': the
// hole must keep the second's added stamp.
func TestDespawningIntoAnOlderBatch(t *testing.T) {
	type pos struct{ X, Y float64 }
	for _, run := range []bool{false, true} {
		w := NewWorld()
		m := NewMap[pos](w)
		var first, second []Entity
		m.SpawnBatch(2*chunkRows, func(_ int, e Entity, _ *pos) { first = append(first, e) })
		since := w.Inspect().NextStamp()
		m.SpawnBatch(chunkRows, func(_ int, e Entity, _ *pos) { second = append(second, e) })
		if run {
			for p := range NewQuery1[pos](w, Mut[pos]()).All() {
				p.X++
			}
		}
		ins, id := w.Inspect(), ComponentIDOf[pos](w)
		for i, e := range first {
			must(t, w.Despawn(e))
			for _, alive := range first[i+1:] {
				if ins.AddedSince(alive, id, since) || ins.ChangedSince(alive, id, since) != run {
					t.Fatalf("query run %v, after %d despawns: %v of the first batch reads as added or changed since it", run, i+1, alive)
				}
			}
			for _, alive := range second {
				if !ins.ChangedSince(alive, id, since) || !ins.AddedSince(alive, id, since) {
					t.Fatalf("query run %v, after %d despawns: %v of the second batch reads as older than it", run, i+1, alive)
				}
			}
		}
	}
}
