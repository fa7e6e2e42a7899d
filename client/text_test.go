package client

import (
	"slices"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// TestDiffLinesCountWhatIsNotListed: a diff whose reader kept only the
// first changed entities (Unlisted counts the rest) reads as the whole
// diff does: the total changed, the first entities, and how many more.
func TestDiffLinesCountWhatIsNotListed(t *testing.T) {
	var all []recording.EntityDiff
	for i := range 25 {
		all = append(all, recording.EntityDiff{Entity: protocol.MakeEntityID(uint32(i), 1), Components: []recording.ComponentChange{{Name: "Frozen", Added: true}}})
	}
	whole := &recording.WorldDiff{From: 1, To: 2, Changed: all}
	kept := &recording.WorldDiff{From: 1, To: 2, Changed: all[:3], Unlisted: 22}
	if a, b := DiffLines(whole, 3), DiffLines(kept, 3); !slices.Equal(a, b) {
		t.Fatalf("whole:\n%q\nkept the first three:\n%q", a, b)
	}
	if got := DiffLines(kept, 3); got[0] != "tick 1 → tick 2: 0 spawned, 0 despawned, 25 changed" || got[len(got)-1] != "  … 22 more" {
		t.Fatalf("%q", got)
	}
}
