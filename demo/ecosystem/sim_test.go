package ecosystem

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/internal/testpace"
)

func TestEcosystemLives(t *testing.T) {
	s := New(2000, 7)
	w := s.World
	var born, died, eaten, fleeingSeen int
	packs := 0
	// 60 simulated seconds; under the race detector (which looks at the
	// parallel stages, the same each frame) 15.
	frames := 3600
	if testpace.Race {
		frames = 900
	}
	for range frames {
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
	t.Logf("after %d frames: %d entities (%d herbivores, %d predators, %d pack members), births %d, deaths %d, eaten %d",
		frames, w.Len(), st.Herbivores, st.Predators, packs, st.Births, st.Deaths, st.Eaten)
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
// finds, with the same offset (ties broken the same way), and the fleeing
// system reads it back by the herbivores' query order.
func TestFleeSearchIsNearest(t *testing.T) {
	s := New(20_000, 3)
	for range 5 {
		s.Step()
	}
	// The frame's structural changes came after its index: index the world
	// as it is now, as the spatial system does.
	herbs := ecs.NewQuery2[Position, Velocity](s.World, ecs.With[Herbivore]())
	sp := &s.space
	sp.herb.fill(sp.cells, herbs)
	sp.pred.fill(sp.cells, ecs.NewQuery2[Position, Velocity](s.World, ecs.With[Predator]()))
	s.fleeSearch()
	if len(sp.herb.items) == 0 || len(sp.fled) != len(sp.herb.items) {
		t.Fatalf("%d herbivores indexed, %d results", len(sp.herb.items), len(sp.fled))
	}
	fleeing, k, place := 0, 0, placeOf(&sp.herb)
	for it := herbs.Iter(); it.Next(); k++ {
		h := sp.herb.items[place[k]]
		from, dx, dy, _ := s.nearest(&sp.pred, h.x, h.y, fleeRadius, nil)
		got, indexed := sp.fleeing(k, it.Entity())
		if !indexed {
			t.Fatalf("herbivore %d of the query, %v, is not where the index says", k, it.Entity())
		}
		var o item // the predator the search found, if any
		if got != nil {
			o = *got
		}
		if o.e != from || (!from.IsZero() && (torusDelta(h.x, o.x, s.side) != dx || torusDelta(h.y, o.y, s.side) != dy)) {
			t.Fatalf("herbivore %v at (%v, %v): search found %+v, nearest %v (%v, %v)", h.e, h.x, h.y, o, from, dx, dy)
		}
		if !from.IsZero() {
			fleeing++
		}
	}
	if fleeing == 0 || fleeing == k {
		t.Fatalf("%d of %d herbivores have a predator in reach: the test sees no contrast", fleeing, k)
	}
	if _, indexed := sp.fleeing(0, ecs.EntityOf(1<<30, 1)); indexed {
		t.Fatal("the index answers for a herbivore it does not hold")
	}
}

// TestBucketFill: every animal the query yields is in the cell its
// position is in, once, the cells holding them in query order, with its
// place in that order, and slots says which animal is k-th.
func TestBucketFill(t *testing.T) {
	s := New(20_000, 5)
	s.Step()
	const cells = 50
	herbs := ecs.NewQuery2[Position, Velocity](s.World, ecs.With[Herbivore]())
	var b bucket
	b.fill(cells, herbs)
	if len(b.start) != cells*cells+1 || b.start[0] != 0 || int(b.start[cells*cells]) != len(b.items) {
		t.Fatalf("starts run %d..%d over %d items", b.start[0], b.start[len(b.start)-1], len(b.items))
	}
	k, place := 0, placeOf(&b)
	last := make([]int32, cells*cells) // per cell, the place of its last animal so far
	for i := range last {
		last[i] = -1
	}
	for it := herbs.Iter(); it.Next(); k++ {
		p, _ := it.Get()
		c, at := cellAt(p.X, p.Y, cells), place[k]
		if at < b.start[c] || at >= b.start[c+1] || at <= last[c] {
			t.Fatalf("animal %d of the query, in cell %d, is at %d: the cell holds %d..%d, its last before at %d", k, c, at, b.start[c], b.start[c+1], last[c])
		}
		if got := b.items[at]; got != (item{it.Entity(), p.X, p.Y, int32(k)}) || b.slots[k] != it.Entity().Index() {
			t.Fatalf("animal %d of the query: %+v (slot %d) is where %v at (%v, %v) should be", k, got, b.slots[k], it.Entity(), p.X, p.Y)
		}
		last[c] = at
	}
	if k != len(b.items) || k == 0 {
		t.Fatalf("the query yields %d animals, the bucket holds %d", k, len(b.items))
	}
}

// placeOf is, for the k-th animal of the query order, its place in
// b.items (-1 if none is k-th).
func placeOf(b *bucket) []int32 {
	place := make([]int32, len(b.items))
	for i := range place {
		place[i] = -1
	}
	for j, it := range b.items {
		if it.i >= 0 && int(it.i) < len(place) {
			place[it.i] = int32(j)
		}
	}
	return place
}
