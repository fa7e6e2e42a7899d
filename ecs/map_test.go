package ecs

import (
	"errors"
	"testing"
)

// TestMapOnLiveDeadAndStaleHandles: a Map answers for a live entity, and
// for a dead or stale handle says nil, false or an error naming why,
// never another entity's value.
func TestMapOnLiveDeadAndStaleHandles(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	hp := NewMap[Health](w)
	e := pos.Spawn(Position{1, 2})
	if p := pos.Get(e); p == nil || *p != (Position{1, 2}) || !pos.Has(e) || pos.Len() != 1 {
		t.Fatalf("a spawned entity: Get %v, Has %v, Len %d", p, pos.Has(e), pos.Len())
	}
	if hp.Get(e) != nil || hp.Read(e) != nil || hp.Has(e) {
		t.Fatal("an entity without Health has one")
	}
	if err := hp.Set(e, Health{3}); !errors.Is(err, ErrNoComponent) {
		t.Fatalf("Set of a missing component: %v", err)
	}
	must(t, hp.Add(e, Health{5}))
	must(t, hp.Add(e, Health{6})) // overwrites
	if got := hp.Read(e); got == nil || got.HP != 6 {
		t.Fatalf("Add twice: %v", got)
	}
	must(t, hp.Remove(e))
	must(t, hp.Remove(e)) // nothing to remove: fine
	if hp.Has(e) || pos.Read(e).X != 1 {
		t.Fatal("Remove took the wrong component")
	}
	must(t, w.Despawn(e))
	again := pos.Spawn(Position{9, 9}) // reuses the slot, a new generation
	if again.Index() != e.Index() || again == e {
		t.Fatalf("the slot was not reused: %v then %v", e, again)
	}
	if pos.Get(e) != nil || pos.Read(e) != nil || pos.Has(e) {
		t.Fatal("a stale handle reads the new entity's value")
	}
	var ee *EntityError
	if err := pos.Set(e, Position{}); !errors.As(err, &ee) || !errors.Is(err, ErrNotAlive) {
		t.Fatalf("Set through a stale handle: %v", err)
	}
	if err := hp.Add(e, Health{1}); !errors.Is(err, ErrNotAlive) {
		t.Fatalf("Add through a stale handle: %v", err)
	}
	if pos.Read(again).X != 9 {
		t.Fatal("the new entity lost its value")
	}
}

// TestMapGetMarksChangedAndReadDoesNot: a write through Get is seen by a
// Changed query; a look through Read is not.
func TestMapGetMarksChangedAndReadDoesNot(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	a, b := pos.Spawn(Position{}), pos.Spawn(Position{})
	changed := NewQuery1[Position](w, Changed[Position]())
	count := func() (n int) {
		for range changed.All() {
			n++
		}
		return n
	}
	count() // the spawns
	pos.Read(a)
	if n := count(); n != 0 {
		t.Fatalf("Read marked %d changed", n)
	}
	pos.Get(b).X = 1
	if n := count(); n != 1 {
		t.Fatalf("Get marked %d changed, want 1", n)
	}
}

// TestMapSpawnBatchAndReadAll: SpawnBatch hands init each new entity in
// order; ReadAll reads a list of handles, nil for the dead.
func TestMapSpawnBatchAndReadAll(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	var ents []Entity
	pos.SpawnBatch(100, func(i int, e Entity, p *Position) {
		ents = append(ents, e)
		p.X = float64(i)
	})
	must(t, w.Despawn(ents[7]))
	out := pos.ReadAll(ents, nil)
	for i, p := range out {
		if (i == 7) != (p == nil) || p != nil && p.X != float64(i) {
			t.Fatalf("ReadAll[%d] = %v", i, p)
		}
	}
}

// TestMapAtIsReadOrAPanic: At answers what Read answers for a live entity
// with the component, in tables made before the Map and after it, and
// panics where Read says nil: a dead or stale handle, an entity without
// the component, a sparse component.
func TestMapAtIsReadOrAPanic(t *testing.T) {
	w := NewWorld()
	early := NewMap[Position](w).Spawn(Position{1, 2}) // a table made before the Map
	pos := NewMap[Position](w)
	hp := NewMap[Health](w)
	late := pos.Spawn(Position{3, 4})
	must(t, hp.Add(late, Health{5})) // a table made after the Map
	for _, e := range []Entity{early, late} {
		if p := pos.At(e); p == nil || p != pos.Read(e) {
			t.Fatalf("At(%v) = %v, Read %v", e, p, pos.Read(e))
		}
	}
	if p := hp.At(late); p == nil || p.HP != 5 {
		t.Fatalf("At of Health = %v", p)
	}
	must(t, w.Despawn(early))
	reused := pos.Spawn(Position{7, 7})
	flee := Register[Fleeing](w, SparseStorage)
	fm := NewMap[Fleeing](w)
	must(t, fm.Add(late, Fleeing{}))
	if flee != fm.ID() || fm.Read(late) == nil {
		t.Fatal("the sparse component is not there to read")
	}
	for what, f := range map[string]func(){
		"a dead handle":              func() { pos.At(early) },
		"an entity without Health":   func() { hp.At(reused) },
		"a sparse component":         func() { fm.At(late) },
		"a handle never issued":      func() { pos.At(EntityOf(1000, 1)) },
		"a generation never reached": func() { pos.At(EntityOf(late.Index(), late.Generation()+5)) },
	} {
		if panicOf(f) == nil {
			t.Errorf("At of %s did not panic", what)
		}
	}
	if pos.At(reused).X != 7 {
		t.Fatal("the reused slot's entity lost its value")
	}
}
