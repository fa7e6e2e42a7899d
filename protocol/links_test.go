package protocol

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// randomLinks is every parent's children, by parent index, as the agent
// lists them: parents among 40 slots (a slot's generation chosen from
// two, so a slot reused by a new parent is met), up to 5 children each.
func randomLinks(rng *rand.Rand) []ChildList {
	var out []ChildList
	for slot := range uint32(40) {
		if rng.IntN(3) != 0 {
			continue
		}
		l := ChildList{Parent: MakeEntityID(slot, 1+uint32(rng.IntN(2)))}
		for range 1 + rng.IntN(5) {
			l.Children = append(l.Children, MakeEntityID(100+uint32(rng.IntN(50)), 1))
		}
		out = append(out, l)
	}
	return out
}

// TestLinksChangedRebuildTheLinks: the parents whose children changed,
// applied to the links before, give the links after, whatever changed
// (parents gone, new, their children reordered, a slot's parent
// replaced); unchanged parents are not listed, and the links before are
// left as they were.
func TestLinksChangedRebuildTheLinks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		prev, next := randomLinks(rng), randomLinks(rng)
		if rng.IntN(4) == 0 { // little changed
			next = append([]ChildList(nil), prev...)
			if len(next) > 0 {
				i := rng.IntN(len(next))
				next[i].Children = append([]EntityID{MakeEntityID(99, 1)}, next[i].Children...)
			}
		}
		before := reflect.ValueOf(prev).Len()
		changed := DiffLinks(prev, next)
		for _, c := range changed {
			for _, p := range prev {
				if p.Parent == c.Parent && reflect.DeepEqual(p.Children, c.Children) {
					t.Fatalf("an unchanged parent listed: %v", c)
				}
			}
		}
		got := ApplyLinks(prev, changed)
		if len(got) == 0 && len(next) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, next) {
			t.Fatalf("links rebuilt:\n%v\nwant\n%v\n(from %v, changed %v)", got, next, prev, changed)
		}
		if len(prev) != before {
			t.Fatal("applying changed the links before")
		}
	}
}
