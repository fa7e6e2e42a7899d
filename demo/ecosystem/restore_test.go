package ecosystem

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
)

// locatable fails unless every live entity sits where its record says.
func locatable(t *testing.T, s *Sim, when string) {
	t.Helper()
	img, err := s.World.Image()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range img.Tables {
		for _, e := range it.Entities {
			arch, row, ok := s.World.Inspect().Location(e)
			if !ok {
				t.Fatalf("%s: %v in the image but not alive", when, e)
			}
			if got, _ := s.World.Inspect().ArchetypeEntities(arch, row, 1); len(got) != 1 || got[0] != e {
				t.Fatalf("%s: %v's record says archetype %d row %d, which holds %v", when, e, arch, row, got)
			}
		}
	}
}

// TestRestoreTheDemo: the ecosystem, with its packs, sparse components and
// command buffers that spawn every frame, restored again and again to one
// image and run on from it: the world stays whole, and holds what the
// image held each time.
func TestRestoreTheDemo(t *testing.T) {
	s := New(20_000, 1)
	for range 5 {
		s.Step()
	}
	img, err := s.World.Image()
	if err != nil {
		t.Fatal(err)
	}
	for k := range 4 {
		for range 3 {
			s.Step()
			locatable(t, s, "a step after a restore")
		}
		if err := s.World.Restore(img); err != nil {
			t.Fatal(k, err)
		}
		locatable(t, s, "restored")
		if s.World.Len() != imageLen(img) || s.World.Frame() != img.Frame {
			t.Fatalf("restored %d entities at frame %d, want %d at %d", s.World.Len(), s.World.Frame(), imageLen(img), img.Frame)
		}
	}
}

func imageLen(img *ecs.Image) int {
	n := 0
	for _, it := range img.Tables {
		n += len(it.Entities)
	}
	return n
}
