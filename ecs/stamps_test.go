package ecs

import (
	"slices"
	"testing"
)

// TestBatchSpawnStampsChunks: a batch spawn gives the chunks it fills whole
// a changed and an added stamp instead of a tick per row (ticks.go). The
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
