package ecs

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestMostRecycledKeptUpToDate: the list the world keeps as slots are
// freed, from the first ask on (the first reads every slot), says what a
// scan of every slot says (the generations; which of tied slots is listed
// may differ), through spawns, despawns and restores before and after.
func TestMostRecycledKeptUpToDate(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := NewWorld()
		var alive []Entity
		var img *Image
		for range rapid.IntRange(1, 300).Draw(rt, "ops") {
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); {
			case op < 5 || len(alive) == 0:
				alive = append(alive, w.Spawn())
			case op < 9:
				i := rapid.IntRange(0, len(alive)-1).Draw(rt, "who")
				must(t, w.Despawn(alive[i]))
				alive = slices.Delete(alive, i, i+1)
			case img == nil:
				img = mustImage(t, w)
			default:
				must(t, w.Restore(img))
				alive = alive[:0]
				for _, it := range img.Tables {
					alive = append(alive, it.Entities...)
				}
			}
			if !rapid.Bool().Draw(rt, "ask") { // the list is kept from the first ask on
				continue
			}
			k := rapid.IntRange(1, MaxRecycledKept).Draw(rt, "k")
			kept, scanned := w.Inspect().MostRecycled(k), w.scanRecycled(k)
			gens := func(s []SlotInfo) []uint32 {
				var out []uint32
				for _, x := range s {
					out = append(out, x.Generation)
				}
				return out
			}
			if !slices.Equal(gens(kept), gens(scanned)) {
				t.Fatalf("kept %v, a scan says %v", kept, scanned)
			}
			for _, x := range kept {
				if rec := w.records[x.Index]; rec.gen != x.Generation || (rec.table != deadTable) != x.Alive {
					t.Fatalf("slot %d listed as %+v, is generation %d", x.Index, x, rec.gen)
				}
			}
		}
	})
}
