package ecs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// scanByEntity is Scan's tick tests done the plain way, entity by entity
// through the record: the reference for TestScanTickTests and the baseline
// of BenchmarkScanChanged.
//
//go:noinline
func scanByEntity(w *World, f Filter, ents []Entity) []Entity {
	var out []Entity
	for _, e := range ents {
		ok := w.Alive(e)
		for _, id := range f.Changed {
			ok = ok && w.Inspect().ChangedSince(e, id, f.Since)
		}
		for _, id := range f.Added {
			ok = ok && w.Inspect().AddedSince(e, id, f.Since)
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// TestScanTickTests: Scan's Changed and Added tests (which read the table's
// tick columns by row and skip clean groups of rows) pass exactly the
// entities that Inspection.ChangedSince and Inspection.AddedSince pass, over tables
// made by batch spawns (stamped chunks), single spawns, moves and scattered
// writes, with a sparse component in the mix, and windows agree.
func TestScanTickTests(t *testing.T) {
	w := NewWorld()
	rng := rand.New(rand.NewPCG(11, 12))
	m := NewMap2[Position, Health](w)
	pos, hp, flee := NewMap[Position](w), NewMap[Health](w), NewMap[Fleeing](w)
	var ents []Entity
	m.SpawnBatch(700, func(_ int, e Entity, _ *Position, _ *Health) { ents = append(ents, e) })
	w.Tick()
	since := w.Inspect().NextStamp()
	m.SpawnBatch(300, func(_ int, e Entity, _ *Position, _ *Health) { ents = append(ents, e) })
	for range 50 {
		e := w.Spawn()
		must(t, pos.Add(e, Position{}))
		ents = append(ents, e)
	}
	for range 80 {
		pos.Get(ents[rng.IntN(len(ents))]).X++
	}
	for range 30 { // some have no Health: Set says so and changes nothing
		if err := hp.Set(ents[rng.IntN(len(ents))], Health{HP: 3}); err != nil && !errors.Is(err, ErrNoComponent) {
			t.Fatal(err)
		}
	}
	for range 40 {
		must(t, flee.Add(ents[rng.IntN(len(ents))], Fleeing{}))
	}
	for range 20 {
		must(t, w.Despawn(ents[rng.IntN(len(ents))]))
	}
	slices.SortFunc(ents, compareEntities)
	ids := func(ts ...any) []ComponentID {
		var out []ComponentID
		for _, x := range ts {
			out = append(out, x.(ComponentID))
		}
		return out
	}
	p, h, fl := pos.ID(), hp.ID(), flee.ID()
	for i, f := range []Filter{
		{Changed: ids(p), Since: since},
		{Changed: ids(h), Since: since},
		{Changed: ids(p, h), Since: since},
		{Added: ids(h), Since: since},
		{Added: ids(fl), Since: since},
		{Changed: ids(p), Added: ids(fl), Since: since},
		{Changed: ids(p), Since: 0},
	} {
		want := scanByEntity(w, f, ents)
		got, total := w.Inspect().Scan(f, 0, -1)
		slices.SortFunc(got, compareEntities)
		if !slices.Equal(got, want) || total != len(want) {
			t.Fatalf("filter %d: %d entities (total %d), want %d", i, len(got), total, len(want))
		}
		if len(want) > 10 {
			all, _ := w.Inspect().Scan(f, 0, -1)
			window, total := w.Inspect().Scan(f, 5, 7)
			if !slices.Equal(window, all[5:12]) || total != len(want) {
				t.Fatalf("filter %d: window %v of %d", i, window, total)
			}
		}
	}
}

// BenchmarkScanChanged is Inspection.Scan with a Changed filter (what the
// inspector runs for a page of changed(Position)) over 1M entities, 1%
// written at random, against the same test made entity by entity through
// the record in the same run.
func BenchmarkScanChanged(b *testing.B) {
	const n = 1_000_000
	w, _ := movingWorld(n)
	pos := NewMap[bPos](w)
	var ents []Entity
	it := NewQuery1[bPos](w).Iter()
	for it.Next() {
		ents = append(ents, it.Entity())
	}
	since := w.Inspect().NextStamp()
	rng := rand.New(rand.NewPCG(7, 8))
	for range n / 100 {
		pos.Get(ents[rng.IntN(n)]).X++
	}
	f := Filter{Changed: []ComponentID{pos.ID()}, Since: since}
	// Both modes find every match (the same ones): checked once.
	if got, total := w.Inspect().Scan(f, 0, -1); len(got) != total || total != len(scanByEntity(w, f, ents)) {
		b.Fatalf("the modes disagree: scan %d, by entity %d", total, len(scanByEntity(w, f, ents)))
	}
	for _, v := range []string{"scan", "by-entity"} {
		b.Run(fmt.Sprintf("mode=%s", v), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if v == "scan" {
					w.Inspect().Scan(f, 0, -1)
				} else {
					scanByEntity(w, f, ents)
				}
			}
			perEntity(b, n)
		})
	}
}
