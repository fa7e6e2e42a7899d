package inspector

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// summaryWhere subscribes to the summary (once) and reads it, deltas
// applied, until want holds; it fails the test after 30 s (a hundred
// frames stepped under the race detector on a busy machine took over 5).
func (c *testClient) summaryWhere(want func(*protocol.Summary) bool) *protocol.Summary {
	c.t.Helper()
	if c.sumSub == 0 {
		r := c.reply(&protocol.Subscribe{What: protocol.SubSummary, Hz: 100})
		if !r.OK {
			c.t.Fatalf("Subscribe summary: %+v", r)
		}
		c.sumSub = r.ID
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Deltas are per subscription: another summary subscription of
		// this client's has its own chain, passed over here.
		m := c.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Summary); return ok && s.Sub == c.sumSub }).(*protocol.Summary)
		next, err := protocol.ApplySummary(c.sum, m)
		if err != nil {
			c.t.Fatal(err)
		}
		if c.sum = next; want(next) {
			return next
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no summary as wanted in 30 s; the last: tick %d, paused %v", next.Tick, next.Paused)
		}
	}
}

// awaitHit reads until a WatchHit arrives.
func (c *testClient) awaitHit() *protocol.WatchHit {
	c.t.Helper()
	return c.await(func(m protocol.Message) bool { _, ok := m.(*protocol.WatchHit); return ok }).(*protocol.WatchHit)
}

// TestValueWatchpoint: a write that makes the query hold pauses the game
// and tells every client which entity, who wrote it and the value; each
// entity fires it once; a log-only watchpoint tells without pausing.
func TestValueWatchpoint(t *testing.T) {
	g := startGame(t, Options{})
	watcher := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "watcher"})
	editor := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "editor"})
	r := watcher.reply(&protocol.Watch{Expr: "Health.HP<0"})
	if !r.OK || r.Watch == 0 {
		t.Fatalf("Watch: %+v", r)
	}
	s := watcher.summaryWhere(func(s *protocol.Summary) bool { return len(s.Watches) == 1 })
	if w := s.Watches[0]; w.Expr != "Health.HP<0" || !w.On || w.Kind != "value" || w.ID != r.Watch {
		t.Fatalf("the summary lists %+v", s.Watches)
	}
	if r := editor.reply(&protocol.SetField{Entity: wire(g.ents[5]), Path: "Health.HP", Value: protocol.IntValue(-3)}); !r.OK {
		t.Fatalf("SetField: %+v", r)
	}
	for _, c := range []*testClient{watcher, editor} {
		hit := c.awaitHit()
		if hit.Watch != r.Watch || hit.Entity != wire(g.ents[5]) || hit.Component != "Health" ||
			!strings.HasPrefix(hit.By, "client ") || !strings.Contains(hit.By, "editor") || !hit.Paused || hit.Value == nil {
			t.Fatalf("hit: %+v", hit)
		}
		if v, _ := hit.Value.Get("HP"); v.Int() != -3 {
			t.Fatalf("the hit's value: %v", hit.Value)
		}
	}
	watcher.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Watches[0].Hits == 1 })
	// Resumed, the same entity written again does not fire; another does.
	if r := editor.reply(&protocol.Resume{}); !r.OK {
		t.Fatal(r)
	}
	editor.reply(&protocol.SetField{Entity: wire(g.ents[5]), Path: "Health.HP", Value: protocol.IntValue(-4)})
	editor.reply(&protocol.SetField{Entity: wire(g.ents[6]), Path: "Health.HP", Value: protocol.IntValue(-1)})
	if hit := watcher.awaitHit(); hit.Entity != wire(g.ents[6]) {
		t.Fatalf("the second hit is %v, want %v (5 fired already)", hit.Entity, wire(g.ents[6]))
	}
	editor.reply(&protocol.Resume{})
	// Log-only: told, not paused.
	if r := watcher.reply(&protocol.Unwatch{Watch: 1}); !r.OK {
		t.Fatal(r)
	}
	watcher.summaryWhere(func(s *protocol.Summary) bool { return len(s.Watches) == 0 }) // emptied, not "unchanged"
	watcher.reply(&protocol.Watch{Expr: "Health.HP>100", Log: true})
	editor.reply(&protocol.SetField{Entity: wire(g.ents[7]), Path: "Health.HP", Value: protocol.IntValue(500)})
	if hit := watcher.awaitHit(); hit.Paused || hit.Entity != wire(g.ents[7]) {
		t.Fatalf("log-only hit: %+v", hit)
	}
	if s := watcher.summaryWhere(func(*protocol.Summary) bool { return true }); s.Paused {
		t.Fatal("a log-only watchpoint paused the game")
	}
}

// TestWatchpointKinds: one entity (with the value before), structural and
// timing watchpoints, and the requests' errors.
func TestWatchpointKinds(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "kinds"})
	e := wire(g.ents[3])
	// Sent at once, so that the edit may come in the same frame as the
	// watchpoint: the value before is the one it was set over.
	c.request(&protocol.Watch{Expr: e.String() + " Health.HP>=50", Log: true})
	c.request(&protocol.SetField{Entity: wire(g.ents[4]), Path: "Health.HP", Value: protocol.IntValue(99)}) // another entity: no hit
	c.request(&protocol.SetField{Entity: e, Path: "Health.HP", Value: protocol.IntValue(50)})
	hit := c.awaitHit()
	if hit.Entity != e || hit.Old == nil {
		t.Fatalf("one entity's hit: %+v", hit)
	}
	if v, _ := hit.Old.Get("HP"); v.Int() != 3 {
		t.Fatalf("the value before is %v, want HP 3", hit.Old)
	}
	c.reply(&protocol.Watch{Expr: "despawn " + wire(g.ents[9]).String(), Log: true})
	c.reply(&protocol.Watch{Expr: "add Frozen", Log: true})
	c.reply(&protocol.Despawn{Entity: wire(g.ents[8])}) // not the one watched
	c.reply(&protocol.Despawn{Entity: wire(g.ents[9])})
	if hit := c.awaitHit(); hit.Entity != wire(g.ents[9]) || !strings.Contains(hit.Text, "despawn") {
		t.Fatalf("despawn hit: %+v", hit)
	}
	c.reply(&protocol.AddComponent{Entity: wire(g.ents[10]), Component: "Frozen"})
	if hit := c.awaitHit(); hit.Entity != wire(g.ents[10]) || hit.Component != "Frozen" || !strings.HasPrefix(hit.By, "client ") {
		t.Fatalf("add hit: %+v", hit)
	}
	c.reply(&protocol.Watch{Expr: "frame > 1us", Log: true})
	if hit := c.awaitHit(); !strings.Contains(hit.Text, "the frame took") {
		t.Fatalf("frame hit: %+v", hit)
	}
	for expr, code := range map[string]string{
		"Bogus.X<0":           protocol.ErrBadQuery,
		"Health":              protocol.ErrBadValue,
		"system nosuch > 1ms": protocol.ErrBadValue,
		"add Nosuch":          protocol.ErrBadValue,
	} {
		if r := c.reply(&protocol.Watch{Expr: expr, Log: true}); r.OK || r.Code != code {
			t.Errorf("Watch %q: %+v, want %s", expr, r, code)
		}
	}
	if r := c.reply(&protocol.Unwatch{Watch: 999}); r.Code != protocol.ErrNotFound {
		t.Errorf("Unwatch of nothing: %+v", r)
	}
}

// TestWatchpointsOnAReadOnlyAgent: log-only watchpoints are reads; one
// that would pause is refused.
func TestWatchpointsOnAReadOnlyAgent(t *testing.T) {
	g := startGame(t, Options{ReadOnly: true})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "ro"})
	if r := c.reply(&protocol.Watch{Expr: "Health.HP<0"}); r.Code != protocol.ErrReadOnly {
		t.Fatalf("a pausing watchpoint on a read-only agent: %+v", r)
	}
	r := c.reply(&protocol.Watch{Expr: "Health.HP<0", Log: true})
	if !r.OK {
		t.Fatalf("a log-only watchpoint on a read-only agent: %+v", r)
	}
	c.reply(&protocol.EnableWatch{Watch: r.Watch, On: false})
	if r := c.reply(&protocol.EnableWatch{Watch: r.Watch, On: true}); !r.OK {
		t.Fatalf("enabling a log-only watchpoint: %+v", r)
	}
}

// TestStaleHandles: the summary reports who uses dead handles, a stale
// watchpoint fires on the first use, and the detail of a dead handle says
// who despawned the entity it named.
func TestStaleHandles(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "stale"})
	victim := g.ents[12]
	c.reply(&protocol.Watch{Expr: "stale", Log: true})
	if r := c.reply(&protocol.Despawn{Entity: wire(victim)}); !r.OK {
		t.Fatal(r)
	}
	// The game's own code keeps using the handle it held.
	hp := ecs.NewMap[Health](g.w)
	g.on(func() { _ = hp.Get(victim) })
	hit := c.awaitHit()
	if hit.Entity != wire(victim) || hit.By != "outside the schedule" || !strings.Contains(hit.Text, "stale") {
		t.Fatalf("stale hit: %+v", hit)
	}
	s := c.summaryWhere(func(s *protocol.Summary) bool { return s.Stale != nil && s.Stale.Total >= 1 })
	if s.Stale.By[0].By != "outside the schedule" || s.Stale.Recent[len(s.Stale.Recent)-1].Entity != wire(victim) {
		t.Fatalf("the summary's audit: %+v", s.Stale)
	}
	// GetEntity of the handle is a check, not a use; it says who despawned
	// it, and shows its last state.
	d, r := c.getEntity(wire(victim))
	if d == nil || d.Alive || d.Died == nil || !strings.Contains(d.Died.By, "client ") || !strings.Contains(d.Reason, "despawned at tick") || len(d.Components) == 0 {
		t.Fatalf("GetEntity of the despawned handle: %+v (refused: %+v)", d, r)
	}
	if total := g.w.Inspect().StaleUses().Total; total != s.Stale.Total {
		t.Fatalf("GetEntity counted as a use: %d, then %d", s.Stale.Total, total)
	}
}

// TestDespawnWatchTakesAQuery: despawn COMPONENT (or any query) fires for
// a despawned entity whose last state it held for, naming who despawned
// it, and not for the others; despawn E still takes a handle.
func TestDespawnWatchTakesAQuery(t *testing.T) {
	g := startGame(t, Options{})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "watcher"})
	frozen := c.reply(&protocol.Watch{Expr: "despawn Frozen", Log: true})
	low := c.reply(&protocol.Watch{Expr: "despawn Health.HP<0", Log: true})
	one := c.reply(&protocol.Watch{Expr: "despawn " + wire(g.ents[7]).String(), Log: true})
	if !frozen.OK || !low.OK || !one.OK {
		t.Fatalf("Watch: %+v %+v %+v", frozen, low, one)
	}
	// Sent at once, applied in order: the hits are read as they come.
	c.request(&protocol.Despawn{Entity: wire(g.ents[5])}) // HP 5, not frozen
	c.request(&protocol.SetField{Entity: wire(g.ents[6]), Path: "Health.HP", Value: protocol.IntValue(-3)})
	c.request(&protocol.Despawn{Entity: wire(g.ents[6])})
	c.request(&protocol.Despawn{Entity: wire(g.ents[1])}) // Frozen
	c.request(&protocol.Despawn{Entity: wire(g.ents[7])})
	got := map[uint32][]protocol.EntityID{}
	for len(got[frozen.Watch]) < 1 || len(got[low.Watch]) < 1 || len(got[one.Watch]) < 1 {
		h := c.awaitHit()
		got[h.Watch] = append(got[h.Watch], h.Entity)
		if !strings.Contains(h.By, "watcher") {
			t.Errorf("a despawn hit names %q, want the client that despawned", h.By)
		}
	}
	// Any other hit of those frames comes before the next summary.
	c.request(&protocol.Subscribe{What: protocol.SubSummary, Hz: 100})
	c.await(func(m protocol.Message) bool {
		if h, ok := m.(*protocol.WatchHit); ok {
			got[h.Watch] = append(got[h.Watch], h.Entity)
		}
		_, sum := m.(*protocol.Summary)
		return sum
	})
	if e := got[frozen.Watch]; len(e) != 1 || e[0] != wire(g.ents[1]) {
		t.Errorf("despawn Frozen fired for %v, want only %v", e, wire(g.ents[1]))
	}
	if e := got[low.Watch]; len(e) != 1 || e[0] != wire(g.ents[6]) {
		t.Errorf("despawn Health.HP<0 fired for %v, want only %v", e, wire(g.ents[6]))
	}
	if e := got[one.Watch]; len(e) != 1 || e[0] != wire(g.ents[7]) {
		t.Errorf("despawn %v fired for %v", wire(g.ents[7]), e)
	}
	if r := c.reply(&protocol.Watch{Expr: "despawn Nope", Log: true}); r.OK || r.Code != protocol.ErrBadQuery {
		t.Errorf("despawn of an unknown component: %+v", r)
	}
}
