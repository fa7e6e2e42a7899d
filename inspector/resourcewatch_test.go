package inspector

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Board is a resource of cells, as a game keeps a collision grid.
type Board struct {
	Cells [64]ecs.Entity
	Turn  int
}

// TestResourceWatchpointNamesTheWriter: a watchpoint on one cell of a
// resource fires when the cell changes, naming the system whose run wrote
// it (not the one that only read the resource, nor the first to run),
// with the value before and after; a change the game's own code makes
// between frames is said to be outside the schedule; a value too big to
// compare after every system is refused, naming the way out.
func TestResourceWatchpointNamesTheWriter(t *testing.T) {
	var at atomic.Int64 // the frame the writer writes the cell at
	at.Store(1 << 40)
	g := startGame(t, Options{}, func(g *game, s *ecs.Schedule) {
		ecs.SetResource(g.w, Board{})
		s.Parallel = false // each system alone: its changes are its own (a parallel stage's are named with "or a system beside it")
		s.Add("reader", func(w *ecs.World, _ *ecs.Commands) { _ = ecs.Resource[Board](w).Cells[3] }, ecs.Reads[Board]())
		s.Add("placer", func(w *ecs.World, _ *ecs.Commands) {
			if int64(w.Frame()) == at.Load() {
				ecs.Resource[Board](w).Cells[3] = g.ents[5]
			}
		}, ecs.Writes[Board]())
		s.Add("after", func(w *ecs.World, _ *ecs.Commands) {}, ecs.Reads[Board]())
	})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "hunter"})
	wantOK(t, "watch", c.reply(&protocol.Watch{Expr: "resource Board.Cells[3]", Log: true}))
	g.on(func() { at.Store(int64(g.w.Frame()) + 3) })
	hit := c.awaitHit()
	if hit.By != "placer" || hit.Component != "Board" || hit.Value == nil || hit.Value.Uint() != uint64(wire(g.ents[5])) {
		t.Fatalf("the hit names %q in %q, value %v: %+v", hit.By, hit.Component, hit.Value, hit)
	}
	if uint64(hit.Tick) != uint64(at.Load())+1 || !strings.Contains(hit.Text, "Board.Cells[3] changed by placer") {
		t.Fatalf("hit at tick %d (the write at frame %d): %q", hit.Tick, at.Load(), hit.Text)
	}
	// The game's own code, between frames.
	g.on(func() { ecs.Resource[Board](g.w).Cells[3] = ecs.Entity{} })
	hit = c.awaitHit()
	if hit.By != "" || !strings.Contains(hit.Text, "outside the schedule") {
		t.Fatalf("a change between frames: %+v", hit)
	}
	// The whole board holds no pointer and is small: watched whole.
	wantOK(t, "watch whole", c.reply(&protocol.Watch{Expr: "resource Board", Log: true}))
	if r := c.reply(&protocol.Watch{Expr: "resource Board.Cells[99]", Log: true}); r.OK || !strings.Contains(r.Message, "Cells") {
		t.Fatalf("a cell past the end: %+v", r)
	}
	if r := c.reply(&protocol.Watch{Expr: "resource Nothing", Log: true}); r.OK || !strings.Contains(r.Message, "Nothing") {
		t.Fatalf("a resource that is not there: %+v", r)
	}
}

// Huge is a resource too big to compare after every system.
type Huge struct{ Cells [100_000]int64 }

// TestResourceWatchpointRefusesAWholeHugeValue: 800 KB of cells is not
// compared after every system: the refusal says to watch a part.
func TestResourceWatchpointRefusesAWholeHugeValue(t *testing.T) {
	g := startGame(t, Options{}, func(g *game, s *ecs.Schedule) { ecs.SetResource(g.w, Huge{}) })
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "hunter"})
	if r := c.reply(&protocol.Watch{Expr: "resource Huge", Log: true}); r.OK || !strings.Contains(r.Message, "watch a part of it") {
		t.Fatalf("watching 800 KB whole: %+v", r)
	}
	wantOK(t, "a part", c.reply(&protocol.Watch{Expr: "resource Huge.Cells[7]", Log: true}))
}

// TestResourceWatchRefusesCraftedExpressions: paths that are not there,
// malformed, absurd or full of control bytes are refused with a reason,
// as are dangling pages past their bounds, and the game keeps ticking.
func TestResourceWatchRefusesCraftedExpressions(t *testing.T) {
	g := startGame(t, Options{}, func(g *game, s *ecs.Schedule) { ecs.SetResource(g.w, Board{}) })
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "hostile"})
	frames := g.frames.Load()
	for _, expr := range []string{"resource", "resource Board.Cells[-1]", "resource Board.Cells[99999999999999999999]",
		"resource Board..Turn", "resource Board.Turn.X", "resource \x1b[31mBoard", "resource Board.Cells[3] extra",
		"resource " + strings.Repeat("A.", 5000)} {
		if r := c.reply(&protocol.Watch{Expr: expr, Log: true}); r.OK || r.Message == "" {
			t.Fatalf("%q: %+v", expr, r)
		}
	}
	for _, m := range []*protocol.GetDangling{{Offset: -1}, {Offset: 1 << 40}, {Limit: -5}} {
		if r := c.reply(m); r.OK || r.Code != protocol.ErrBadValue {
			t.Fatalf("GetDangling %+v: %+v", m, r)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); g.frames.Load() < frames+3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the game stopped ticking")
		}
	}
}
