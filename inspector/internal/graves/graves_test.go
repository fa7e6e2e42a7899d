package graves

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

type hp struct{ HP int }

type blob struct{ Data []byte }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func noOne(ecs.Entity, ecs.ComponentID) (written, added *protocol.Provenance) { return nil, nil }

// TestYardKeepsTheLastState: a despawned entity's components are kept as
// its despawn found them, with who despawned it and when; a later value
// written before the despawn is the one kept, and the handle of the
// slot's next life finds nothing.
func TestYardKeepsTheLastState(t *testing.T) {
	w := ecs.NewWorld()
	y := New(w, func(ecs.Entity, ecs.ComponentID) (*protocol.Provenance, *protocol.Provenance) {
		return &protocol.Provenance{By: "writer"}, nil
	})
	m := ecs.NewMap[hp](w)
	e := w.Spawn()
	must(t, m.Add(e, hp{HP: 3}))
	m.Get(e).HP = -7
	must(t, w.Despawn(e))
	g, ok := y.Find(e)
	if !ok || g.By != "external" || g.Tick != 1 || len(g.Parts) != 1 {
		t.Fatalf("the grave: %+v (%v)", g, ok)
	}
	if v, _ := g.Parts[0].Value.Get("HP"); v.Int() != -7 || g.Parts[0].Written == nil || g.Parts[0].Written.By != "writer" {
		t.Fatalf("its HP: %v written %+v, want -7 by writer", g.Parts[0].Value, g.Parts[0].Written)
	}
	again := w.Spawn()
	if again.Index() == e.Index() {
		if _, ok := y.Find(again); ok {
			t.Fatal("the slot's next life has a grave")
		}
	}
}

// TestYardBounds: a mass despawn keeps MaxPerFrame of its entities and
// counts the rest; despawns over many frames keep the newest MaxGraves;
// big values keep the yard within MaxBytes.
func TestYardBounds(t *testing.T) {
	w := ecs.NewWorld()
	y := New(w, noOne)
	m := ecs.NewMap[hp](w)
	for range 10_000 {
		must(t, m.Add(w.Spawn(), hp{HP: 1}))
	}
	if n := w.DespawnWhere(ecs.Filter{With: []ecs.ComponentID{ecs.ComponentIDOf[hp](w)}}); n != 10_000 {
		t.Fatalf("despawned %d", n)
	}
	if n, _ := y.Len(); n != MaxPerFrame || y.Missed != 10_000-MaxPerFrame {
		t.Fatalf("a mass despawn kept %d graves, missed %d; want %d and %d", n, y.Missed, MaxPerFrame, 10_000-MaxPerFrame)
	}
	var last ecs.Entity
	for range 40 {
		for range 200 {
			last = w.Spawn()
			must(t, m.Add(last, hp{HP: 2}))
			must(t, w.Despawn(last))
		}
		must(t, w.Tick())
	}
	if n, _ := y.Len(); n != MaxGraves {
		t.Fatalf("kept %d graves, want the newest %d", n, MaxGraves)
	}
	if _, ok := y.Find(last); !ok {
		t.Fatal("the newest grave is gone")
	}
	b := ecs.NewMap[blob](w)
	for range 400 {
		e := w.Spawn()
		must(t, b.Add(e, blob{Data: []byte(strings.Repeat("x", 60_000))}))
		must(t, w.Despawn(e))
		must(t, w.Tick())
	}
	if _, bytes := y.Len(); bytes > MaxBytes {
		t.Fatalf("the yard holds %d bytes, over %d", bytes, MaxBytes)
	}
}
