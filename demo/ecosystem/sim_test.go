package ecosystem

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
)

func TestEcosystemLives(t *testing.T) {
	s := New(2000, 7)
	w := s.World
	var born, died, eaten, fleeingSeen int
	packs := 0
	for range 3600 { // 60 simulated seconds
		s.Step()
		// Step ends with the world's Tick: what the frame sent is the
		// queues' previous half now, each event seen exactly once.
		b, _ := ecs.EventsOf[Born](w).Slices()
		born += len(b)
		d, _ := ecs.EventsOf[Died](w).Slices()
		died += len(d)
		e, _ := ecs.EventsOf[Eaten](w).Slices()
		eaten += len(e)
		fleeingSeen += s.flee.Len()
	}
	st := ecs.Resource[Stats](w)
	for it := ecs.NewQuery1[ecs.ChildOf](w).Iter(); it.Next(); {
		packs++
	}
	t.Logf("after 60 s: %d entities (%d herbivores, %d predators, %d pack members), births %d, deaths %d, eaten %d",
		w.Len(), st.Herbivores, st.Predators, packs, st.Births, st.Deaths, st.Eaten)
	if packs > 0 && st.Packs == 0 || st.Packs > st.Predators {
		t.Errorf("Stats says %d packs for %d pack members and %d predators", st.Packs, packs, st.Predators)
	}
	if w.Len() < 1000 || w.Len() > 2500 {
		t.Errorf("population drifted to %d from 2000", w.Len())
	}
	if st.Births == 0 || st.Deaths+st.Eaten == 0 || fleeingSeen == 0 || packs == 0 {
		t.Errorf("no churn: births %d deaths %d eaten %d fleeing %d packs %d", st.Births, st.Deaths, st.Eaten, fleeingSeen, packs)
	}
	// The events and the Stats resource count the same things.
	if uint64(born) != st.Births || uint64(died) != st.Deaths || uint64(eaten) != st.Eaten {
		t.Errorf("events say %d born, %d died, %d eaten; Stats says %d, %d, %d", born, died, eaten, st.Births, st.Deaths, st.Eaten)
	}
	if w.Inspect().Stats().Free == 0 && st.Deaths+st.Eaten > 0 {
		t.Error("no slot was freed")
	}
}

func TestSeedReplays(t *testing.T) {
	a, b := New(1000, 42), New(1000, 42)
	for range 300 {
		a.Step()
		b.Step()
	}
	sa, sb := ecs.Resource[Stats](a.World), ecs.Resource[Stats](b.World)
	if *sa != *sb || a.World.Len() != b.World.Len() {
		t.Errorf("the same seed gave %+v and %+v", *sa, *sb)
	}
	c := New(1000, 43)
	for range 300 {
		c.Step()
	}
	if *ecs.Resource[Stats](c.World) == *sa {
		t.Error("another seed gave the same run")
	}
}

// TestFleeSearchIsNearest: the cell-by-cell search over both cores finds,
// for every herbivore, the predator that asking nearest for it alone
// finds, with the same offset (ties broken the same way).
func TestFleeSearchIsNearest(t *testing.T) {
	s := New(20_000, 3)
	for range 5 {
		s.Step()
	}
	sp := &s.space
	if len(sp.hs) == 0 || len(sp.fled) != len(sp.hs) {
		t.Fatalf("%d herbivores indexed, %d results", len(sp.hs), len(sp.fled))
	}
	fleeing := 0
	for _, h := range sp.hs {
		from, dx, dy, _ := s.nearest(&sp.pred, h.x, h.y, fleeRadius, nil)
		var got item // the predator the search found, if any
		if k := sp.fled[h.i]; k >= 0 {
			got = sp.ps[k]
		}
		if got.e != from || (!from.IsZero() && (torusDelta(h.x, got.x, s.side) != dx || torusDelta(h.y, got.y, s.side) != dy)) {
			t.Fatalf("herbivore %v at (%v, %v): search found %+v, nearest %v (%v, %v)", h.e, h.x, h.y, got, from, dx, dy)
		}
		if !from.IsZero() {
			fleeing++
		}
	}
	if fleeing == 0 || fleeing == len(sp.hs) {
		t.Fatalf("%d of %d herbivores have a predator in reach: the test sees no contrast", fleeing, len(sp.hs))
	}
}

// TestBucketBuildInParts: sorted by two goroutines, the cells hold the
// same items in the same order as sorted by one.
func TestBucketBuildInParts(t *testing.T) {
	const cells = 50
	rng := rand.New(rand.NewPCG(1, 2))
	items := make([]item, 20_000)
	for k := range items {
		items[k] = item{e: ecs.EntityOf(uint32(k+1), 1), x: rng.Float32() * cells * cellSize, y: rng.Float32() * cells * cellSize, i: int32(k)}
	}
	var one, two bucket
	one.build(cells, items, 1)
	two.build(cells, items, 2)
	if !slices.Equal(one.start, two.start) || !slices.Equal(one.items, two.items) {
		t.Fatal("the buckets built in two parts differ from the one built whole")
	}
	for c := range cells * cells {
		for _, it := range one.items[one.start[c]:one.start[c+1]] {
			if got := cellOf(it.y, cellSize, cells)*cells + cellOf(it.x, cellSize, cells); got != c {
				t.Fatalf("item %d at (%v, %v) is in cell %d, not its cell %d", it.i, it.x, it.y, c, got)
			}
		}
	}
}
