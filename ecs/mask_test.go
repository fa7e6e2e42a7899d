package ecs

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestMaskIsASetOfComponents holds a Mask to a plain set of component ids:
// membership, clearing, subset and overlap tests, count and the ids in order.
func TestMaskIsASetOfComponents(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var a, b Mask
		inA, inB := map[ComponentID]bool{}, map[ComponentID]bool{}
		id := rapid.Custom(func(t *rapid.T) ComponentID { return ComponentID(rapid.IntRange(0, 255).Draw(t, "id")) })
		for range rapid.IntRange(0, 40).Draw(rt, "ops") {
			c := id.Draw(rt, "c")
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0:
				a.Set(c)
				inA[c] = true
			case 1:
				a.Clear(c)
				delete(inA, c)
			case 2:
				b.Set(c)
				inB[c] = true
			case 3:
				b.Clear(c)
				delete(inB, c)
			}
		}
		var ids []ComponentID
		for c := range inA {
			ids = append(ids, c)
		}
		slices.Sort(ids)
		if got := a.IDs(); !slices.Equal(got, ids) && !(len(got) == 0 && len(ids) == 0) {
			t.Fatalf("IDs %v, want %v", got, ids)
		}
		if a.Len() != len(inA) || a.IsZero() != (len(inA) == 0) {
			t.Fatalf("Len %d IsZero %v, want %d", a.Len(), a.IsZero(), len(inA))
		}
		all, any := true, false
		for c := range inB {
			all = all && inA[c]
			any = any || inA[c]
		}
		if a.ContainsAll(&b) != all || a.ContainsAny(&b) != any {
			t.Fatalf("ContainsAll %v ContainsAny %v, want %v %v", a.ContainsAll(&b), a.ContainsAny(&b), all, any)
		}
		for c := range ComponentID(255) {
			if a.Has(c) != inA[c] {
				t.Fatalf("Has(%d) = %v", c, a.Has(c))
			}
		}
	})
}
