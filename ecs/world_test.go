package ecs

import (
	"slices"
	"strings"
	"testing"
)

type Position struct{ X, Y float64 }
type Velocity struct{ X, Y float64 }
type Health struct{ HP int }
type Name struct{ Value string }
type Frozen struct{}

// Fleeing is sparse: toggled every few frames.
type Fleeing struct{ Since int }

func (Fleeing) Storage() StorageKind { return SparseStorage }

func TestValuesSurviveTableMoves(t *testing.T) {
	w := NewWorld()
	pos, hp, name := NewMap[Position](w), NewMap[Health](w), NewMap[Name](w)
	frozen := NewMap[Frozen](w)
	e := NewMap2[Position, Name](w).Spawn(Position{1, 2}, Name{"orc"})
	must(t, hp.Add(e, Health{HP: 10}))
	must(t, frozen.Add(e, Frozen{}))
	must(t, frozen.Remove(e))
	must(t, hp.Remove(e))
	must(t, hp.Add(e, Health{HP: 3}))
	if got := *pos.Read(e); got != (Position{1, 2}) {
		t.Errorf("Position = %+v", got)
	}
	if got := name.Read(e).Value; got != "orc" {
		t.Errorf("Name = %q", got)
	}
	if got := hp.Read(e).HP; got != 3 {
		t.Errorf("Health = %d", got)
	}
	if frozen.Has(e) {
		t.Error("Frozen still present")
	}
}

func TestSwapRemovePatchesMovedEntity(t *testing.T) {
	w := NewWorld()
	spawn := NewMap2[Position, Health](w)
	var ents []Entity
	for i := range 5 {
		ents = append(ents, spawn.Spawn(Position{X: float64(i)}, Health{HP: i}))
	}
	must(t, w.Despawn(ents[1])) // the last row moves into row 1
	pos := NewMap[Position](w)
	for i, e := range ents {
		if i == 1 {
			continue
		}
		if got := pos.Read(e).X; got != float64(i) {
			t.Errorf("entity %d reads X=%v after swap-remove", i, got)
		}
	}
	must(t, NewMap[Frozen](w).Add(ents[0], Frozen{})) // moves row 0 out; last moves in
	for i, e := range ents {
		if i != 1 && pos.Read(e).X != float64(i) {
			t.Errorf("entity %d wrong after move", i)
		}
	}
}

func TestSparseToggleMovesNoRow(t *testing.T) {
	w := NewWorld()
	spawn := NewMap2[Position, Velocity](w)
	a := spawn.Spawn(Position{X: 1}, Velocity{})
	b := spawn.Spawn(Position{X: 2}, Velocity{})
	flee := NewMap[Fleeing](w)
	tables := len(w.tables)
	rowA, rowB := w.records[a.index], w.records[b.index]
	for i := range 10 {
		must(t, flee.Add(a, Fleeing{Since: i}))
		if !flee.Has(a) || flee.Read(a).Since != i || flee.Has(b) {
			t.Fatal("sparse add not seen")
		}
		must(t, flee.Remove(a))
	}
	if len(w.tables) != tables || w.records[a.index] != rowA || w.records[b.index] != rowB {
		t.Error("toggling a sparse component moved rows or made tables")
	}
	must(t, flee.Add(b, Fleeing{}))
	must(t, w.Despawn(b))
	if flee.sparse.length() != 0 {
		t.Error("despawn left the entity in the sparse set")
	}
	c := w.Spawn() // reuses b's slot
	if flee.Has(c) {
		t.Error("a new entity in a reused slot inherited a sparse component")
	}
}

func TestDespawnRemovesFromEveryStore(t *testing.T) {
	w := NewWorld()
	e := NewMap3[Position, Name, Fleeing](w).Spawn(Position{}, Name{"x"}, Fleeing{})
	must(t, w.Despawn(e))
	for _, tb := range w.tables {
		if tb.len() != 0 {
			t.Errorf("table %v still has %d rows", tb.ids, tb.len())
		}
	}
	if w.sparse[ComponentIDOf[Fleeing](w)].length() != 0 || w.Len() != 0 {
		t.Error("entity left behind")
	}
}

func TestSpawnBatchAndMapN(t *testing.T) {
	w := NewWorld()
	m := NewMap3[Position, Velocity, Fleeing](w)
	var ents []Entity
	m.SpawnBatch(100, func(i int, e Entity, p *Position, v *Velocity, f *Fleeing) {
		p.X, v.Y, f.Since = float64(i), 1, i
		ents = append(ents, e)
	})
	if w.Len() != 100 || len(ents) != 100 {
		t.Fatalf("Len = %d", w.Len())
	}
	for i, e := range ents {
		p, v, f := m.Get(e)
		if p.X != float64(i) || v.Y != 1 || f.Since != i {
			t.Fatalf("entity %d: %+v %+v %+v", i, p, v, f)
		}
	}
	e := w.Spawn()
	if err := m.Add(e, Position{X: 5}, Velocity{}, Fleeing{Since: 2}); err != nil {
		t.Fatal(err)
	}
	if !m.Has(e) {
		t.Error("Map3.Add did not add all")
	}
	must(t, m.Remove(e))
	if a, b, c := m.Get(e); a != nil || b != nil || c != nil || !w.Alive(e) {
		t.Error("Map3.Remove did not remove all")
	}
	m.SpawnBatch(0, nil)
	m.SpawnBatch(3, nil)
	if w.Len() != 104 {
		t.Errorf("Len = %d, want 104", w.Len())
	}
}

// TestSpawnBatchColumns spawns in blocks into a world with earlier rows and
// a sparse component, and checks each entity got the values its block slot
// was given, with Added seeing exactly the batch.
func TestSpawnBatchColumns(t *testing.T) {
	w := NewWorld()
	m := NewMap3[Position, Velocity, Fleeing](w)
	m.SpawnBatch(10, nil) // rows and sparse entries before the batch
	added := NewQuery1[Position](w, Added[Position]())
	for range added.All() {
	}
	const n = 3*spawnBlock + 7
	var firsts []int
	var ents []Entity
	m.SpawnBatchColumns(n, func(first int, es []Entity, ps []Position, vs []Velocity, fs []Fleeing) {
		if len(ps) != len(es) || len(vs) != len(es) || len(fs) != len(es) {
			t.Fatalf("block at %d: %d entities, %d/%d/%d values", first, len(es), len(ps), len(vs), len(fs))
		}
		if first != len(ents) {
			t.Fatalf("block first = %d after %d entities", first, len(ents))
		}
		firsts = append(firsts, first)
		for i, e := range es {
			if ps[i] != (Position{}) || vs[i] != (Velocity{}) || fs[i] != (Fleeing{}) {
				t.Fatalf("entity %d does not start zero", first+i)
			}
			ps[i].X, vs[i].Y, fs[i].Since = float64(first+i), -1, first+i
			ents = append(ents, e)
		}
	})
	if want := []int{0, spawnBlock, 2 * spawnBlock, 3 * spawnBlock}; !slices.Equal(firsts, want) {
		t.Errorf("blocks start at %v, want %v", firsts, want)
	}
	if len(ents) != n || w.Len() != n+10 {
		t.Fatalf("%d entities handed out, world has %d", len(ents), w.Len())
	}
	for i, e := range ents {
		p, v, f := m.Get(e)
		if p == nil || f == nil || p.X != float64(i) || v.Y != -1 || f.Since != i {
			t.Fatalf("entity %d (%v): %+v %+v %+v", i, e, p, v, f)
		}
	}
	var seen int
	for range added.All() {
		seen++
	}
	if seen != n {
		t.Errorf("Added query saw %d entities, want the batch's %d", seen, n)
	}
	m.SpawnBatchColumns(0, nil)
	m.SpawnBatchColumns(5, nil)
	if w.Len() != n+15 {
		t.Errorf("Len = %d after a batch of 5 with no init", w.Len())
	}
}

// TestSpawnBatchInitMayNotChangeStructure: a despawn or spawn from a batch
// init would move the rows it is setting up; it panics with a message that
// names the fix, and the world is usable afterwards.
func TestSpawnBatchInitMayNotChangeStructure(t *testing.T) {
	w := NewWorld()
	m := NewMap2[Position, Velocity](w)
	for name, init := range map[string]func(i int, e Entity, p *Position, v *Velocity){
		"Despawn": func(i int, e Entity, _ *Position, _ *Velocity) { _ = w.Despawn(e) },
		"Spawn":   func(i int, e Entity, _ *Position, _ *Velocity) { m.Spawn(Position{}, Velocity{}) },
	} {
		msg := func() (msg string) {
			defer func() { msg, _ = recover().(string) }()
			m.SpawnBatch(10, init)
			return ""
		}()
		if !strings.Contains(msg, name+" inside a SpawnBatch init") || !strings.Contains(msg, "ecs.Commands") {
			t.Errorf("%s in init: panic %q", name, msg)
		}
	}
	before := w.Len()
	e := m.Spawn(Position{X: 1}, Velocity{})
	if err := w.Despawn(e); err != nil || w.Len() != before {
		t.Errorf("world still locked after the panics: %v", err)
	}
	for p := range NewQuery1[Position](w).All() {
		if p.X != 0 {
			t.Errorf("stray value %v", *p)
		}
	}
}

func TestSetAndErrors(t *testing.T) {
	w := NewWorld()
	hp := NewMap[Health](w)
	e := w.Spawn()
	err := hp.Set(e, Health{HP: 1})
	if err == nil || !strings.Contains(err.Error(), "has no Health") {
		t.Errorf("Set on an entity lacking the component: %v", err)
	}
	must(t, hp.Add(e, Health{HP: 1}))
	must(t, hp.Add(e, Health{HP: 2})) // overwrite, no move
	if hp.Read(e).HP != 2 {
		t.Error("Add did not overwrite")
	}
	if err := hp.Set(e, Health{HP: 5}); err != nil || hp.Read(e).HP != 5 {
		t.Errorf("Set: %v", err)
	}
}

func TestObservedComponents(t *testing.T) {
	w := NewWorld()
	e := NewMap2[Position, Fleeing](w).Spawn(Position{}, Fleeing{})
	ids := w.Inspect().ComponentsOf(e)
	if len(ids) != 2 || !w.Has(e, ids[0]) || !w.Has(e, ids[1]) {
		t.Errorf("ComponentsOf = %v", ids)
	}
	info, ok := w.Inspect().ComponentByName("Fleeing")
	if !ok || info.Storage != SparseStorage || !strings.HasSuffix(info.Name, "/ecs.Fleeing") {
		t.Errorf("ComponentByName: %+v %v", info, ok)
	}
}

func TestRegisterConflictPanics(t *testing.T) {
	w := NewWorld()
	ComponentIDOf[Health](w)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "already registered with table storage") {
			t.Errorf("panic = %v", r)
		}
	}()
	Register[Health](w, SparseStorage)
}

// TestCapacityMakesRoomAhead: a world made with Capacity(n) has room for
// n entities in each table it makes, so filling one to n grows nothing; a
// world without it starts small.
func TestCapacityMakesRoomAhead(t *testing.T) {
	w := NewWorld(Capacity(1000))
	m := NewMap2[Position, Velocity](w)
	first := m.Spawn(Position{}, Velocity{})
	arch, _, _ := w.Inspect().Location(first)
	capOf := func(w *World, id uint32) int {
		for _, a := range w.Inspect().Archetypes() {
			if a.ID == id {
				return a.Cap
			}
		}
		return -1
	}
	if c := capOf(w, arch); c < 1000 {
		t.Fatalf("a new table has room for %d rows, want 1000", c)
	}
	for range 999 {
		m.Spawn(Position{}, Velocity{})
	}
	if c := capOf(w, arch); c < 1000 || c > 1024 {
		t.Fatalf("filled to 1000 the table has room for %d", c)
	}
	if cap(w.records) < 1000 {
		t.Fatalf("room for %d entity records", cap(w.records))
	}
	plain := NewWorld()
	NewMap2[Position, Velocity](plain).Spawn(Position{}, Velocity{})
	if a := plain.Inspect().Archetypes(); a[len(a)-1].Cap >= 1000 {
		t.Fatalf("a world without Capacity starts with room for %d", a[len(a)-1].Cap)
	}
}
