package ecs

import (
	"math/rand/v2"
	"testing"
)

// TestReadAllIsReadForEach: ReadAll gives, in order, the pointer Read
// gives for each handle: live ones in any table, ones lacking the
// component, dead and never-issued ones (nil), and a sparse component's;
// it appends to what out holds.
func TestReadAllIsReadForEach(t *testing.T) {
	w := NewWorld()
	pos, hp, flee := NewMap[Position](w), NewMap[Health](w), NewMap[Fleeing](w)
	rng := rand.New(rand.NewPCG(9, 9))
	var ents []Entity
	for i := range 200 {
		e := pos.Spawn(Position{X: float64(i)})
		if i%4 == 0 {
			must(t, hp.Add(e, Health{HP: i}))
		}
		if i%6 == 0 {
			must(t, flee.Add(e, Fleeing{Since: i}))
		}
		ents = append(ents, e)
	}
	bare := w.Spawn()
	must(t, w.Despawn(ents[3]))
	handles := []Entity{ents[3], bare, EntityOf(9999, 1), {}}
	for range 300 {
		handles = append(handles, ents[rng.IntN(len(ents))])
	}
	got := pos.ReadAll(handles, []*Position{nil})
	if len(got) != len(handles)+1 || got[0] != nil {
		t.Fatalf("ReadAll appended %d to one, want %d", len(got), len(handles)+1)
	}
	for i, e := range handles {
		if got[i+1] != pos.Read(e) {
			t.Fatalf("%v: ReadAll %p, Read %p", e, got[i+1], pos.Read(e))
		}
	}
	sparse := flee.ReadAll(handles, nil)
	for i, e := range handles {
		if sparse[i] != flee.Read(e) {
			t.Fatalf("sparse %v: ReadAll %p, Read %p", e, sparse[i], flee.Read(e))
		}
	}
}
