package ecs

import (
	"strings"
	"testing"
)

// TestComponentRegistration: a type gets one id per world, whichever way
// it is first named; its storage kind, name, size and tag-ness are kept.
func TestComponentRegistration(t *testing.T) {
	w := NewWorld()
	id := ComponentIDOf[Position](w)
	if NewMap[Position](w).ID() != id || ComponentIDOf[Position](w) != id {
		t.Fatal("one type, two ids")
	}
	flee := Register[Fleeing](w, SparseStorage)
	info := w.Inspect().Component(flee)
	if info.Storage != SparseStorage || info.Storage.String() == "" || info.Short != "Fleeing" || !strings.HasSuffix(info.Name, ".Fleeing") || info.Size != 8 {
		t.Fatalf("Fleeing: %+v", info)
	}
	tag, pinfo := w.Inspect().Component(ComponentIDOf[Frozen](w)), w.Inspect().Component(id)
	if !tag.IsTag() || pinfo.IsTag() {
		t.Fatal("tags: a zero-size type is one, Position is not")
	}
	if got, ok := w.Inspect().ComponentByName("Position"); !ok || got.ID != id {
		t.Fatalf("by name: %+v %v", got, ok)
	}
	other := NewWorld()
	NewMap[Health](other)
	if ComponentIDOf[Position](other) == id && ComponentIDOf[Health](other) == 0 && id != 0 {
		t.Fatal("ids leak between worlds")
	}
}
