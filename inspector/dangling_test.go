package inspector

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// Hunts is a component that keeps a handle.
type Hunts struct{ Prey ecs.Entity }

// flowerBed is a resource grid of flower handles, as the bee port kept
// one: a flower that runs out is despawned and its cell is left holding
// the dead handle.
type flowerBed struct{ Cells []ecs.Entity }

// startFlowerGame is the test game with a bed of 8 flowers and a
// "harvest" system that despawns the flower in cell 3 on frame pick (and
// leaves its handle in the bed); 19 hunters hunt the other test entities,
// and the first hunts the flower.
func startFlowerGame(t *testing.T, opts Options, pick uint64) (g *game, flower ecs.Entity) {
	var flowers []ecs.Entity
	g = startGame(t, opts, func(g *game, s *ecs.Schedule) {
		for range 8 {
			flowers = append(flowers, g.w.Spawn())
		}
		flower = flowers[3]
		ecs.SetResource(g.w, flowerBed{Cells: flowers})
		hunts := ecs.NewMap[Hunts](g.w)
		for i, e := range g.ents[1:] {
			must(t, hunts.Add(e, Hunts{Prey: g.ents[i%2]}))
		}
		must(t, hunts.Set(g.ents[1], Hunts{Prey: flower}))
		s.Add("harvest", func(w *ecs.World, c *ecs.Commands) {
			if w.Frame()+1 == pick {
				c.Despawn(flower)
			}
		})
	})
	return g, flower
}

// summaryListing waits for a summary whose dangling list holds an entry
// that keep accepts.
func (c *testClient) summaryListing(keep func(protocol.Dangling) bool) (*protocol.Summary, protocol.Dangling) {
	c.t.Helper()
	var found protocol.Dangling
	s := c.summaryWhere(func(s *protocol.Summary) bool {
		if s.Dangling == nil {
			return false
		}
		for _, d := range s.Dangling.List {
			if keep(d) {
				found = d
				return true
			}
		}
		return false
	})
	return s, found
}

// TestDanglingHandlesAreListed: a flower despawned by a system, whose
// handle stays in a resource grid and in a hunter's component, is listed
// in both places from the frame it died in, with the tick and the system;
// once the grid's cell is cleared, the next pass drops that one.
func TestDanglingHandlesAreListed(t *testing.T) {
	const pick = 40
	g, flower := startFlowerGame(t, Options{}, pick)
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	s, inBed := c.summaryListing(func(d protocol.Dangling) bool { return d.Resource == "flowerBed" })
	want := protocol.Dangling{Resource: "flowerBed", Path: "flowerBed.Cells[3]", Handle: wire(flower), Since: pick, By: "harvest", Why: inBed.Why}
	if inBed != want || !strings.Contains(inBed.Why, "is stale") {
		t.Fatalf("listed %+v, want %+v", inBed, want)
	}
	_, inHunter := c.summaryListing(func(d protocol.Dangling) bool { return d.Component == "Hunts" })
	if inHunter.Holder != wire(g.ents[1]) || inHunter.Path != "Hunts.Prey" || inHunter.By != "harvest" || inHunter.Since != pick {
		t.Errorf("the hunter's dangling prey: %+v", inHunter)
	}
	if s.Dangling.N != 2 || s.Agent.HandlePasses == 0 || s.Agent.HandlesRead != 8+19 {
		t.Errorf("%d listed, %d passes reading %d handles; want 2 listed, 27 handles a pass", s.Dangling.N, s.Agent.HandlePasses, s.Agent.HandlesRead)
	}
	g.on(func() { ecs.Resource[flowerBed](g.w).Cells[3] = ecs.Entity{} })
	s = c.summaryWhere(func(s *protocol.Summary) bool { return s.Dangling != nil && s.Dangling.N == 1 })
	if s.Dangling.List[0].Component != "Hunts" {
		t.Errorf("after the cell was cleared the list is %+v", s.Dangling.List)
	}
}

// TestDanglingWatchpointStopsTheFrame: a dangling watchpoint on the grid
// stops the game at the end of the frame whose system despawned the
// flower, and its hit names that system and where the handle is.
func TestDanglingWatchpointStopsTheFrame(t *testing.T) {
	const pick = 30
	g, flower := startFlowerGame(t, Options{}, pick)
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	if r := c.reply(&protocol.Watch{Expr: "dangling flowerBed"}); !r.OK {
		t.Fatalf("watch: %s %s", r.Code, r.Message)
	}
	hit := c.await(func(m protocol.Message) bool { _, ok := m.(*protocol.WatchHit); return ok }).(*protocol.WatchHit)
	want := fmt.Sprintf("dangling: flowerBed.Cells[3] holds %v, despawned at tick %d by harvest", wire(flower), pick)
	if hit.By != "harvest" || hit.Text != want || hit.Tick != pick || !hit.Paused {
		t.Fatalf("hit %+v\nwant by harvest at tick %d: %s", hit, pick, want)
	}
	if s := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }); s.Tick != pick {
		t.Errorf("paused at tick %d, want %d", s.Tick, pick)
	}
}

// TestDanglingSearchKeepsItsBudget: with a budget of 100 handles a frame,
// a world of 2,000 hunters is read in passes of about 20 frames, never
// more than the budget (and a value's worth) a frame; off, nothing is
// listed and a dangling watchpoint is refused.
func TestDanglingSearchKeepsItsBudget(t *testing.T) {
	g, _ := startFlowerGame(t, Options{DanglingBudget: 100}, 1<<40)
	g.on(func() {
		ecs.NewMap2[Position, Hunts](g.w).SpawnBatch(2000, func(_ int, _ ecs.Entity, _ *Position, h *Hunts) { h.Prey = g.ents[0] })
	})
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	first := c.summaryWhere(func(s *protocol.Summary) bool { return s.Agent.HandlesRead > 2000 })
	last := c.summaryWhere(func(s *protocol.Summary) bool { return s.Agent.HandlePasses >= first.Agent.HandlePasses+3 })
	// Between the two summaries at least passes-1 whole passes were read.
	frames, passes := last.Tick-first.Tick, last.Agent.HandlePasses-first.Agent.HandlePasses
	handles := uint64(last.Agent.HandlesRead)
	if read := (passes - 1) * handles; read > frames*(100+1) {
		t.Errorf("%d whole passes of %d handles in %d frames: over the budget of 100 a frame", passes-1, handles, frames)
	}

	off := startGame(t, Options{DanglingBudget: -1})
	oc := dial(t, off, protocol.Hello{Version: protocol.Version})
	oc.reply(&protocol.Subscribe{What: protocol.SubSummary})
	if s := oc.summary(); s.Dangling != nil || s.Agent.HandlePasses != 0 {
		t.Errorf("the search is off and the summary has %+v, %d passes", s.Dangling, s.Agent.HandlePasses)
	}
	if r := oc.reply(&protocol.Watch{Expr: "dangling"}); r.Code != protocol.ErrState {
		t.Errorf("a dangling watchpoint with the search off: %s %s", r.Code, r.Message)
	}
}

// TestDanglingWatchpointAfterAClientsDespawn: a despawn a client makes
// between frames is read by the end of the frame after it, as PROTOCOL.md
// says: a pausing dangling watchpoint stops the game there, and its hit
// names the client as the despawner and the tick it despawned at.
func TestDanglingWatchpointAfterAClientsDespawn(t *testing.T) {
	g, flower := startFlowerGame(t, Options{}, 0) // the harvest never picks
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "gardener"})
	wantOK(t, "watch", c.reply(&protocol.Watch{Expr: "dangling flowerBed"}))
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	at := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }).Tick
	wantOK(t, "despawn", c.reply(&protocol.Despawn{Entity: wire(flower)}))
	wantOK(t, "resume", c.reply(&protocol.Resume{}))
	hit := c.awaitHit()
	if hit.Tick != at+1 || !hit.Paused || !strings.Contains(hit.Text, fmt.Sprintf("despawned at tick %d by client 1 (gardener)", at)) {
		t.Fatalf("despawned between frames at tick %d, the hit: %+v; want it at the end of tick %d, by gardener at %d", at, hit, at+1, at)
	}
	if s := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }); s.Tick != at+1 {
		t.Errorf("paused at tick %d, want %d", s.Tick, at+1)
	}
}

// TestDanglingSaysWhoStoredIt: a hunter whose Hunts a system writes every
// frame, the flower's dead handle included, is listed with that system as
// the last to write the component, after the despawn, and not only the
// system that despawned the flower.
func TestDanglingSaysWhoStoredIt(t *testing.T) {
	const pick = 30
	var flower ecs.Entity
	g := startGame(t, Options{}, func(g *game, s *ecs.Schedule) {
		flower = g.w.Spawn()
		hunts := ecs.NewMap[Hunts](g.w)
		must(t, hunts.Add(g.ents[1], Hunts{Prey: flower}))
		s.Add("harvest", func(w *ecs.World, c *ecs.Commands) {
			if w.Frame()+1 == pick {
				c.Despawn(flower)
			}
		})
		s.AddStage("late")
		s.Add("stalker", func(w *ecs.World, _ *ecs.Commands) {
			hunts.Get(g.ents[1]).Prey = flower // keeps the handle, dead or not
		}, ecs.Writes[Hunts]())
	})
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	_, d := c.summaryListing(func(d protocol.Dangling) bool {
		return d.Component == "Hunts" && d.Stored != nil && d.Stored.Tick > pick+2
	})
	if d.By != "harvest" || d.Stored.By != "stalker" || !d.StoredAfter() {
		t.Fatalf("the hunter's dangling prey: despawned by %q, stored by %+v", d.By, d.Stored)
	}
	if s := d.String(); !strings.Contains(s, "despawned at tick 30 by harvest; Hunts last") || !strings.Contains(s, "by stalker, after the despawn") {
		t.Fatalf("in words: %q", s)
	}
}

// TestDanglingStoredWatchpointNamesTheStorer: "dangling stored Hunts"
// passes over a handle stored before its entity's despawn (the hunter
// that simply outlived its prey) and stops at the one a system wrote
// after it, naming that system, not the one that despawned the entity.
func TestDanglingStoredWatchpointNamesTheStorer(t *testing.T) {
	const pick, late = 30, 36
	var flower ecs.Entity
	g := startGame(t, Options{}, func(g *game, s *ecs.Schedule) {
		flower = g.w.Spawn()
		hunts := ecs.NewMap[Hunts](g.w)
		must(t, hunts.Add(g.ents[1], Hunts{Prey: flower}))
		must(t, hunts.Add(g.ents[3], Hunts{}))
		s.Add("harvest", func(w *ecs.World, c *ecs.Commands) {
			if w.Frame()+1 == pick {
				c.Despawn(flower)
			}
		})
		s.AddStage("late")
		s.Add("stalker", func(w *ecs.World, _ *ecs.Commands) {
			if w.Frame()+1 == late {
				hunts.Get(g.ents[3]).Prey = flower
			}
		}, ecs.Writes[Hunts]())
	})
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	if r := c.reply(&protocol.Watch{Expr: "dangling stored Hunts"}); !r.OK {
		t.Fatalf("watch: %s %s", r.Code, r.Message)
	}
	hit := c.awaitHit()
	if hit.Entity != wire(g.ents[3]) || hit.By != "stalker" || hit.Tick < late || !strings.HasPrefix(hit.Text, "stored after its entity's despawn: ") || !strings.Contains(hit.Text, "by harvest") {
		t.Fatalf("hit %+v: want %v's handle, stored by stalker at tick %d or after", hit, wire(g.ents[3]), late)
	}
	if _, err := query.ParseWatch("dangling stored Hunts Grid"); err == nil {
		t.Fatal("dangling stored with two names parsed")
	}
}

// TestGetDanglingIsBounded: a page past the bound is refused at the door;
// an agent that does not look for dangling handles says so.
func TestGetDanglingIsBounded(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	if r := c.reply(&protocol.GetDangling{Limit: protocol.MaxDanglingPage + 1}); r.OK || r.Code != protocol.ErrBadValue {
		t.Fatalf("a page of %d: %+v", protocol.MaxDanglingPage+1, r)
	}
	off := startGame(t, Options{DanglingBudget: -1})
	c = dial(t, off, protocol.Hello{Version: protocol.Version})
	if r := c.reply(&protocol.GetDangling{}); r.OK || r.Code != protocol.ErrState {
		t.Fatalf("an agent that does not look: %+v", r)
	}
}
