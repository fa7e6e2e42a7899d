package ecs

import (
	"strings"
	"testing"
)

// TestIterVisitsEveryMatchOnceEveryWay: Next with Get and Entity, the
// table-at-a-time NextTable with Columns and Entities, and All visit the
// same entities with the same values, each once, over several tables and
// with Without, Optional and sparse components in play.
func TestIterVisitsEveryMatchOnceEveryWay(t *testing.T) {
	w := NewWorld()
	pos, hp, name := NewMap[Position](w), NewMap[Health](w), NewMap[Name](w)
	flee := NewMap[Fleeing](w)
	want := map[Entity]float64{}
	for i := range 300 {
		e := pos.Spawn(Position{X: float64(i)})
		if i%2 == 0 {
			must(t, hp.Add(e, Health{i}))
		}
		if i%3 == 0 {
			must(t, name.Add(e, Name{"n"}))
		}
		if i%5 == 0 {
			must(t, flee.Add(e, Fleeing{i}))
		}
		if i%3 != 0 {
			want[e] = float64(i)
		}
	}
	q := NewQuery2[Position, Health](w, Without[Name](), Optional[Health]())
	seen := map[Entity]float64{}
	for it := q.Iter(); it.Next(); {
		p, h := it.Get()
		if _, dup := seen[it.Entity()]; dup {
			t.Fatalf("%v visited twice", it.Entity())
		}
		if (h != nil) != (int(p.X)%2 == 0) || h != nil && h.HP != int(p.X) {
			t.Fatalf("%v: Health %v for X %v", it.Entity(), h, p.X)
		}
		seen[it.Entity()] = p.X
	}
	byTable := map[Entity]float64{}
	for it := q.Iter(); it.NextTable(); {
		ps, _ := it.Columns()
		for i, e := range it.Entities() {
			byTable[e] = ps[i].X
		}
	}
	sum, wantSum := 0.0, 0.0
	for p := range NewQuery1[Position](w, Without[Name]()).All() {
		sum += p.X
	}
	for _, x := range want {
		wantSum += x
	}
	if sum != wantSum {
		t.Fatalf("All: the X values sum to %v, want %v", sum, wantSum)
	}
	for name, got := range map[string]map[Entity]float64{"Next": seen, "NextTable": byTable} {
		if len(got) != len(want) {
			t.Fatalf("%s visited %d, want %d", name, len(got), len(want))
		}
		for e, x := range want {
			if got[e] != x {
				t.Fatalf("%s: %v has X %v, want %v", name, e, got[e], x)
			}
		}
	}
	if n := NewQuery1[Position](w, Without[Name]()).Count(); n != len(want) {
		t.Fatalf("Count %d, want %d", n, len(want))
	}
	// Sparse components are tested per row.
	fled := map[Entity]bool{}
	for it := NewQuery1[Fleeing](w).Iter(); it.Next(); {
		if f := it.Get(); !flee.Has(it.Entity()) || f.Since%5 != 0 || fled[it.Entity()] {
			t.Fatalf("%v: Fleeing %v", it.Entity(), f)
		}
		fled[it.Entity()] = true
	}
	if len(fled) != 60 {
		t.Fatalf("%d entities flee, want 60", len(fled))
	}
}

// TestIterLocksTheWorldUntilCloseOrEnd: a structural change while a run
// iterates panics with a message naming the fix; Close, or the end of
// the run, lets the world change again.
func TestIterLocksTheWorldUntilCloseOrEnd(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	for range 3 {
		pos.Spawn(Position{})
	}
	q := NewQuery1[Position](w)
	it := q.Iter()
	if !it.Next() {
		t.Fatal("no first match")
	}
	func() {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(strings.ToLower(r.(string)), "command") {
				t.Fatalf("a spawn while iterating: %v", r)
			}
		}()
		w.Spawn()
	}()
	it.Close()
	w.Spawn() // unlocked
	for it := q.Iter(); it.Next(); {
	}
	must(t, w.Despawn(w.Spawn())) // unlocked at the end of a run
}
