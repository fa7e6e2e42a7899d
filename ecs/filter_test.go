package ecs

import (
	"testing"

	"pgregory.net/rapid"
)

// TestQueryTermsMatchAPlainModel: a typed query's terms (With, Without,
// Optional, and the sparse and table components behind them) match, over
// random worlds, exactly the entities a plain reading of each entity's
// components says they match, and the Scan filter built from the same
// terms agrees.
func TestQueryTermsMatchAPlainModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := NewWorld()
		pos, hp, name, flee := NewMap[Position](w), NewMap[Health](w), NewMap[Name](w), NewMap[Fleeing](w)
		type has struct{ hp, name, flee bool }
		model := map[Entity]has{}
		for i := range rapid.IntRange(0, 80).Draw(rt, "n") {
			e := pos.Spawn(Position{X: float64(i)})
			h := has{rapid.Bool().Draw(rt, "hp"), rapid.Bool().Draw(rt, "name"), rapid.Bool().Draw(rt, "flee")}
			if h.hp {
				must(t, hp.Add(e, Health{i}))
			}
			if h.name {
				must(t, name.Add(e, Name{"x"}))
			}
			if h.flee {
				must(t, flee.Add(e, Fleeing{i}))
			}
			model[e] = h
		}
		for e, h := range model { // some leave again, reshuffling rows
			if rapid.IntRange(0, 4).Draw(rt, "despawn") == 0 {
				must(t, w.Despawn(e))
				delete(model, e)
			} else if h.flee && rapid.Bool().Draw(rt, "unflee") {
				must(t, flee.Remove(e))
				h.flee = false
				model[e] = h
			}
		}
		withHP, withoutName, withFlee := rapid.Bool().Draw(rt, "withHP"), rapid.Bool().Draw(rt, "withoutName"), rapid.Bool().Draw(rt, "withFlee")
		var terms []Term
		f := Filter{With: []ComponentID{pos.ID()}}
		if withHP {
			terms = append(terms, With[Health]())
			f.With = append(f.With, hp.ID())
		}
		if withoutName {
			terms = append(terms, Without[Name]())
			f.Without = append(f.Without, name.ID())
		}
		if withFlee {
			terms = append(terms, With[Fleeing]())
			f.With = append(f.With, flee.ID())
		}
		got := map[Entity]bool{}
		for it := NewQuery1[Position](w, terms...).Iter(); it.Next(); {
			got[it.Entity()] = true
		}
		scanned, total := w.Inspect().Scan(f, 0, -1)
		want := 0
		for e, h := range model {
			pass := (!withHP || h.hp) && (!withoutName || !h.name) && (!withFlee || h.flee)
			if pass {
				want++
			}
			if got[e] != pass {
				t.Fatalf("%v (%+v): the query says %v, want %v", e, h, got[e], pass)
			}
		}
		if len(got) != want || total != want || len(scanned) != want {
			t.Fatalf("the query %d, Scan %d (%d), the model %d", len(got), total, len(scanned), want)
		}
		for _, e := range scanned {
			if !got[e] {
				t.Fatalf("Scan passes %v, the query does not", e)
			}
		}
	})
}
