package ecs

import (
	"errors"
	"strings"
	"testing"
)

func TestEntityStringRoundTrip(t *testing.T) {
	for _, e := range []Entity{EntityOf(42, 3), EntityOf(0, 1), EntityOf(4294967295, 4294967295)} {
		got, err := ParseEntity(e.String())
		if err != nil || got != e {
			t.Errorf("ParseEntity(%q) = %v, %v; want %v", e.String(), got, err, e)
		}
	}
	if s := EntityOf(42, 3).String(); s != "42v3" {
		t.Errorf("String() = %q, want 42v3", s)
	}
	for _, bad := range []string{"", "42", "v3", "42v", "x v3", "42v-1", "99999999999v1"} {
		if _, err := ParseEntity(bad); err == nil {
			t.Errorf("ParseEntity(%q) succeeded", bad)
		}
	}
}

func TestStaleHandleRejectedEverywhere(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	old := w.Spawn()
	if err := pos.Add(old, Position{X: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Despawn(old); err != nil {
		t.Fatal(err)
	}
	reused := w.Spawn() // takes the same slot
	if reused.Index() != old.Index() || reused.Generation() != old.Generation()+1 {
		t.Fatalf("slot not reused with a new generation: old %v, new %v", old, reused)
	}
	must(t, pos.Add(reused, Position{X: 7}))

	if w.Alive(old) || pos.Has(old) || pos.Get(old) != nil || pos.Read(old) != nil {
		t.Error("stale handle accepted by a read")
	}
	for name, err := range map[string]error{
		"Despawn": w.Despawn(old), "Add": pos.Add(old, Position{X: 99}), "Set": pos.Set(old, Position{X: 99}),
		"Remove": pos.Remove(old), "AddID": w.Inspect().AddID(old, pos.ID()), "RemoveID": w.Inspect().RemoveID(old, pos.ID()),
	} {
		if !errors.Is(err, ErrNotAlive) {
			t.Errorf("%s on stale handle: err = %v, want ErrNotAlive", name, err)
		}
	}
	if got := pos.Read(reused); got == nil || got.X != 7 {
		t.Errorf("the slot's new owner was touched: %+v", got)
	}
	want := "entity " + old.String() + " is stale: slot " + "0" + " is now generation 2"
	if err := w.Despawn(old); err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestNeverIssuedHandles(t *testing.T) {
	w := NewWorld()
	e := w.Spawn()
	for _, h := range []Entity{{}, EntityOf(5, 1), EntityOf(e.Index(), e.Generation()+1)} {
		if w.Alive(h) {
			t.Errorf("%v is alive", h)
		}
		err := w.Despawn(h)
		if err == nil || !(strings.Contains(err.Error(), "never issued") || strings.Contains(err.Error(), "zero handle")) {
			t.Errorf("Despawn(%v) = %v", h, err)
		}
	}
	if !w.Alive(e) {
		t.Error("the real entity died")
	}
}

func TestSlotRetiredAtLastGeneration(t *testing.T) {
	w := NewWorld()
	e := w.Spawn()
	w.records[e.Index()].gen = maxGeneration - 1
	e = EntityOf(e.Index(), maxGeneration-1)
	must(t, w.Despawn(e))
	last := w.Spawn()
	if last.Generation() != maxGeneration || last.Index() != e.Index() {
		t.Fatalf("got %v, want slot %d at the last generation", last, e.Index())
	}
	must(t, w.Despawn(last))
	next := w.Spawn()
	if next.Index() == e.Index() {
		t.Fatalf("retired slot reused: %v", next)
	}
	if w.retired != 1 {
		t.Errorf("retired = %d, want 1", w.retired)
	}
	if err := w.Despawn(last); err == nil || !strings.Contains(err.Error(), "retired") {
		t.Errorf("despawn of the retired handle: %v", err)
	}
}
