package ecs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestExchangeSwitchesStateInOneMove: Exchange adds one component and
// removes others (table and sparse ones) in one move; the entity ends as
// a remove and an add would leave it, its other values kept, and the
// journal says what was added and removed. The queued form does the same.
func TestExchangeSwitchesStateInOneMove(t *testing.T) {
	for _, queued := range []bool{false, true} {
		w := NewWorld()
		w.Inspect().EnableJournal(64)
		pos, hp, name, flee := NewMap[Position](w), NewMap[Health](w), NewMap[Name](w), NewMap[Fleeing](w)
		e := w.Spawn()
		must(t, pos.Add(e, Position{X: 1}))
		must(t, hp.Add(e, Health{HP: 7}))
		must(t, flee.Add(e, Fleeing{}))
		before := len(w.Inspect().Journal())
		tables := len(w.tables)
		if queued {
			c := w.NewCommands("switcher")
			ExchangeLater(c, e, Name{Value: "resting"}, hp.ID(), flee.ID())
			must(t, c.Apply())
		} else {
			must(t, name.Exchange(e, Name{Value: "resting"}, hp.ID(), flee.ID()))
		}
		if hp.Has(e) || flee.Has(e) || !pos.Has(e) || name.Read(e) == nil || name.Read(e).Value != "resting" || pos.Read(e).X != 1 {
			t.Fatalf("queued %v: after the exchange: pos %v hp %v flee %v name %v", queued, pos.Has(e), hp.Has(e), flee.Has(e), name.Read(e))
		}
		if len(w.tables) != tables+1 {
			t.Fatalf("queued %v: the exchange made %d tables, want the destination only", queued, len(w.tables)-tables)
		}
		ops := map[string]int{}
		for _, j := range w.Inspect().Journal()[before:] {
			ops[j.Op.String()]++
		}
		if ops["add"] != 1 || ops["remove"] != 2 {
			t.Fatalf("queued %v: the journal says %v", queued, ops)
		}
		// Again: the component it has is set in place, a missing one to
		// remove passed over.
		must(t, name.Exchange(e, Name{Value: "foraging"}, hp.ID()))
		if name.Read(e).Value != "foraging" || !pos.Has(e) {
			t.Fatalf("queued %v: the second exchange: %v", queued, name.Read(e))
		}
	}
}

// TestExchangeRefusals: a dead entity, the added component among the
// removed ones, and ChildOf are refused, changing nothing.
func TestExchangeRefusals(t *testing.T) {
	w := NewWorld()
	pos, hp := NewMap[Position](w), NewMap[Health](w)
	e := w.Spawn()
	must(t, pos.Add(e, Position{X: 1}))
	if err := hp.Exchange(e, Health{}, hp.ID()); !errors.Is(err, errBothWays) {
		t.Fatalf("T among the removed: %v", err)
	}
	if err := hp.Exchange(e, Health{}, ComponentIDOf[ChildOf](w)); err == nil {
		t.Fatal("ChildOf removed by an exchange")
	}
	if hp.Has(e) || !pos.Has(e) {
		t.Fatal("a refused exchange changed the entity")
	}
	must(t, w.Despawn(e))
	var ee *EntityError
	if err := hp.Exchange(e, Health{}, pos.ID()); !errors.As(err, &ee) {
		t.Fatalf("a dead entity: %v", err)
	}
}

// TestExchangeFromOneTableByEveryPair: from one table, every exchange of
// one component for another (each added component with each removed one,
// back and forth, so the table's remembered edges are reused) leaves the
// entity holding exactly what a remove then an add would.
func TestExchangeFromOneTableByEveryPair(t *testing.T) {
	w := NewWorld()
	pos, vel, hp, name := NewMap[Position](w), NewMap[Velocity](w), NewMap[Health](w), NewMap[Name](w)
	flee := NewMap[Fleeing](w)
	has := func(e Entity) [5]bool {
		return [5]bool{pos.Has(e), vel.Has(e), hp.Has(e), name.Has(e), flee.Has(e)}
	}
	ids := []ComponentID{pos.ID(), vel.ID(), hp.ID(), name.ID()}
	for round := range 3 { // the later rounds go through the remembered edges
		for ri, remove := range ids {
			for _, add := range []struct {
				i  int
				ex func(e Entity) error
			}{
				{4, func(e Entity) error { return flee.Exchange(e, Fleeing{Since: round}, remove) }},
				{3, func(e Entity) error { return name.Exchange(e, Name{Value: "x"}, remove) }},
			} {
				if add.i == ri {
					continue
				}
				e := w.Spawn()
				must(t, pos.Add(e, Position{X: 1}))
				must(t, vel.Add(e, Velocity{X: 2}))
				must(t, hp.Add(e, Health{HP: 3}))
				want := has(e)
				must(t, add.ex(e))
				want[ri], want[add.i] = false, true
				if got := has(e); got != want {
					t.Fatalf("round %d: exchange adding #%d for #%d from {Position Velocity Health}: holds %v, want %v", round, add.i, ri, got, want)
				}
			}
		}
	}
}

// TestQueuedExchangeFromAGoneStateIsSkipped: two systems of one stage
// each queue a switch of the same entity out of Fleeing; the first
// applied switches it, the second finds Fleeing gone and does nothing,
// counted as skipped for its system (and, with PanicOnSkipped, a panic
// naming it): the entity ends in one state, not two.
func TestQueuedExchangeFromAGoneStateIsSkipped(t *testing.T) {
	for _, panics := range []bool{false, true} {
		w := NewWorld()
		flee, hp, name := NewMap[Fleeing](w), NewMap[Health](w), NewMap[Name](w)
		e := w.Spawn()
		must(t, flee.Add(e, Fleeing{Since: 1}))
		s := NewSchedule()
		s.Parallel, s.PanicOnSkipped = false, panics
		s.Add("calm", func(w *World, c *Commands) { ExchangeLater(c, e, Health{HP: 5}, flee.ID()) })
		s.Add("rest", func(w *World, c *Commands) { ExchangeLater(c, e, Name{Value: "resting"}, flee.ID()) })
		var recovered any
		func() {
			defer func() { recovered = recover() }()
			s.Run(w)
		}()
		if panics {
			if msg := fmt.Sprint(recovered); !strings.Contains(msg, "rest") || !strings.Contains(msg, "skipped") {
				t.Fatalf("PanicOnSkipped: %v", recovered)
			}
			continue
		}
		if recovered != nil {
			t.Fatal(recovered)
		}
		if flee.Has(e) || !hp.Has(e) || name.Has(e) {
			t.Fatalf("after two switches out of Fleeing: fleeing %v, health %v, name %v; want health only", flee.Has(e), hp.Has(e), name.Has(e))
		}
		for _, si := range s.Systems() {
			if want := map[string]uint64{"calm": 0, "rest": 1}[si.Name]; si.Skipped != want {
				t.Fatalf("%s skipped %d, want %d (%v)", si.Name, si.Skipped, want, si.SkippedWhy)
			}
		}
	}
}
