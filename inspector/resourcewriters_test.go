package inspector

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// collisionGrid is a platformer's collision grid: a resource of handles.
type collisionGrid struct {
	Width int
	Cells []ecs.Entity
}

// TestResourceWritersNameWhoStoredAHandle: on a grid resource, a platform
// crumbles (its system clears its cell and despawns it) and a later
// system writes its handle back: with a client attached, the dangling
// handle says that system stored it (not the one that despawned its
// entity), "dangling stored" stops there naming it, and a page of the
// grid says who last wrote each cell (only the cells changed while the
// client looked).
func TestResourceWritersNameWhoStoredAHandle(t *testing.T) {
	var plat ecs.Entity
	var arm atomic.Uint64 // the frame the platform crumbles in, once the client looks
	var drift atomic.Bool // a system moves cell 9 while nobody looks
	g := startGame(t, Options{}, func(g *game, s *ecs.Schedule) {
		plat = g.w.Spawn()
		ecs.SetResource(g.w, collisionGrid{Width: 4, Cells: make([]ecs.Entity, 16)})
		ecs.Resource[collisionGrid](g.w).Cells[7] = plat
		s.Add("crumble", func(w *ecs.World, c *ecs.Commands) {
			if at := arm.Load(); at != 0 && w.Frame()+1 == at {
				ecs.Resource[collisionGrid](w).Cells[7] = ecs.Entity{}
				c.Despawn(plat)
			}
		}, ecs.Writes[collisionGrid]())
		s.AddStage("late")
		s.Add("updateObjects", func(w *ecs.World, _ *ecs.Commands) {
			if at := arm.Load(); at != 0 && w.Frame()+1 == at+3 {
				ecs.Resource[collisionGrid](w).Cells[7] = plat // the stale write
				ecs.Resource[collisionGrid](w).Cells[2] = g.ents[4]
			}
		}, ecs.Writes[collisionGrid]())
		s.Add("drift", func(w *ecs.World, _ *ecs.Commands) {
			if drift.CompareAndSwap(true, false) {
				ecs.Resource[collisionGrid](w).Cells[9] = g.ents[6]
			}
		}, ecs.Writes[collisionGrid]())
	})
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	if r := c.reply(&protocol.Watch{Expr: "dangling stored collisionGrid"}); !r.OK {
		t.Fatalf("watch: %s %s", r.Code, r.Message)
	}
	// The reply came from a Sync that counted the client: the agent looks
	// at resources from then on.
	g.on(func() { arm.Store(g.w.Frame() + 3) })
	hit := c.awaitHit()
	if hit.By != "updateObjects" || !strings.Contains(hit.Text, "collisionGrid.Cells[7]") || !strings.Contains(hit.Text, "by crumble") {
		t.Fatalf("the hit %+v: want the stale handle at collisionGrid.Cells[7], stored by updateObjects, despawned by crumble", hit)
	}
	_, d := c.summaryListing(func(d protocol.Dangling) bool { return d.Resource == "collisionGrid" && d.Stored != nil })
	if d.By != "crumble" || d.Stored.By != "updateObjects" || !d.StoredAfter() || !d.Stored.Seen {
		t.Fatalf("the grid's dangling handle: despawned by %q, stored by %+v", d.By, d.Stored)
	}
	if s := d.String(); !strings.Contains(s, "; collisionGrid.Cells[7] last written at tick") || !strings.Contains(s, "by updateObjects, after the despawn") {
		t.Fatalf("in words: %q", s)
	}
	page := c.page(&protocol.GetResource{Name: "collisionGrid", Path: "Cells"})
	for i, it := range page.Items {
		switch i {
		case 2, 7:
			if it.Written == nil || it.Written.By != "updateObjects" || it.Written.Tick != d.Stored.Tick {
				t.Errorf("cell %d written by %+v, want updateObjects at %d", i, it.Written, d.Stored.Tick)
			}
		default:
			if it.Written != nil {
				t.Errorf("cell %d, unchanged while the client looked, written by %+v", i, it.Written)
			}
		}
	}

	// Nobody looks: a change made then is not pinned on anyone when a
	// client looks again (the copies are taken afresh).
	c.conn.Close()
	for looking := true; looking; {
		g.on(func() { looking = g.agent.resLooking || g.agent.srv.Clients() > 0 })
	}
	drift.Store(true)
	for moved := false; !moved; {
		g.on(func() { moved = !drift.Load() })
	}
	c2 := dial(t, g, protocol.Hello{Version: protocol.Version})
	c2.reply(&protocol.Watch{Expr: "Health.HP < -1000", Log: true}) // a round trip: the agent has counted c2
	cell9 := c2.page(&protocol.GetResource{Name: "collisionGrid", Path: "Cells", Offset: 9, Limit: 1})
	if w := cell9.Items[0].Written; w != nil {
		t.Fatalf("cell 9, moved by drift while nobody looked, is said written by %+v", w)
	}
}
