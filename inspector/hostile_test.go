package inspector

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// A hostile game: the data real games hold, at sizes that hurt. Its
// resources: a tile map (plain, 8 MiB), an asset table (a map of a
// million entries), a sample buffer (16 MiB of float64), a navigation
// graph with back pointers (cycles everywhere), an interface holding a
// pointer into the graph. Its components: a pooled slice every holder
// shares (8 MiB), a pointer into the graph.
type (
	hostileTiles struct {
		W, H  int
		Tiles []uint16
	}
	hostileAssets  struct{ ByID map[int]int }
	hostileSamples struct{ Values []float64 }
	hostileNode    struct {
		ID    int
		Links []*hostileNode
		Back  *hostileNode
	}
	hostileNav  struct{ Nodes []*hostileNode }
	hostileAny  struct{ V any }
	hostilePool struct{ Data []float64 }
	hostileOn   struct{ At *hostileNode }
)

// hostileWorld builds the hostile game with holders entities of each
// component and plain entities beside them.
func hostileWorld(t testing.TB, holders, plain int) *ecs.World {
	t.Helper()
	w := ecs.NewWorld()
	ecs.SetResource(w, hostileTiles{W: 2048, H: 2048, Tiles: make([]uint16, 2048*2048)})
	assets := make(map[int]int, 1_000_000)
	for i := range 1_000_000 {
		assets[i] = i
	}
	ecs.SetResource(w, hostileAssets{ByID: assets})
	ecs.SetResource(w, hostileSamples{Values: make([]float64, 2_000_000)})
	nav := hostileNav{Nodes: make([]*hostileNode, 1000)}
	for i := range nav.Nodes {
		nav.Nodes[i] = &hostileNode{ID: i}
	}
	for i, n := range nav.Nodes {
		for j := 1; j <= 6; j++ {
			n.Links = append(n.Links, nav.Nodes[(i+j*37)%len(nav.Nodes)])
		}
		n.Back = nav.Nodes[(i+len(nav.Nodes)-1)%len(nav.Nodes)]
	}
	ecs.SetResource(w, nav)
	ecs.SetResource(w, hostileAny{V: nav.Nodes[7]})
	pool := make([]float64, 1<<20)
	pools, ons := ecs.NewMap[hostilePool](w), ecs.NewMap[hostileOn](w)
	for i := range holders {
		if err := pools.Add(w.Spawn(), hostilePool{Data: pool}); err != nil {
			t.Fatal(err)
		}
		if err := ons.Add(w.Spawn(), hostileOn{At: nav.Nodes[i%len(nav.Nodes)]}); err != nil {
			t.Fatal(err)
		}
	}
	ecs.NewMap3[Position, Velocity, Health](w).SpawnBatch(plain, func(i int, _ ecs.Entity, _ *Position, v *Velocity, _ *Health) { v.X = 1 })
	return w
}

// TestHostileDataIsBoundedOnTheGamesTime: with the agent idle (its
// rewind ring on), a game holding every hostile shape runs its frames;
// each capture converts at most its share of values and copies at most
// the bound of each value; a mass despawn keeps at most a frame's graves;
// a snapshot shows the graph whole (a node met again as a repeat) and
// names each value too big to keep, with why.
func TestHostileDataIsBoundedOnTheGamesTime(t *testing.T) {
	w := hostileWorld(t, 2000, 100_000)
	a := New(w, Options{})
	defer a.Close()
	for range 3 {
		must(t, w.Tick())
		a.Sync()
	}
	captures, converted, copied := a.ring.Work()
	if captures == 0 {
		t.Fatal("the ring took no capture")
	}
	// 2,000 pooled slices of a million floats each and 2,000 graph
	// pointers, converted on the game's time: within the capture's share.
	if per := converted / captures; per > 1<<18 {
		t.Fatalf("a capture converted %d values on the game's time", per)
	}
	// The tiles (8 MiB) and the samples (16 MiB) and the assets are past
	// the bound: copied are the graph and the plain columns.
	if per := copied / captures; per > 4*protocol.MaxWholeResourceBytes+100_000*64 {
		t.Fatalf("a capture copied %s", protocol.ByteSize(per))
	}
	n := w.DespawnWhere(ecs.Filter{With: []ecs.ComponentID{ecs.ComponentIDOf[Position](w)}})
	must(t, w.Tick())
	a.Sync()
	if n != 100_000 || a.graves == nil {
		t.Fatalf("despawned %d (graves %v)", n, a.graves != nil)
	}
	if kept, _ := a.graves.Len(); kept > 256 {
		t.Fatalf("a despawn of 100,000 kept %d graves", kept)
	}
	snap := sharedSnapshotOf(t, a, 7)
	byName := map[string]protocol.Value{}
	for _, r := range snap.Resources {
		byName[r.Name] = r.Value
	}
	for name, want := range map[string]string{
		"hostileAssets":  "not kept: ",
		"hostileSamples": "not kept: ",
		"hostileTiles":   "not kept: ",
	} {
		v := byName[name]
		if !strings.Contains(v.String(), want) {
			t.Errorf("%s in a snapshot: %.200s, want it named as not kept", name, v.String())
		}
	}
	if s := byName["hostileSamples"].String(); !strings.Contains(s, "2,000,000 items, 15.3 MiB") {
		t.Errorf("the samples' note does not say what they are: %s", s)
	}
	nodes, _ := byName["hostileNav"].Get("Nodes")
	if nodes.Len() != 1000 || !strings.Contains(byName["hostileNav"].String(), values.RepeatPrefix) {
		t.Fatalf("the graph in a snapshot: %d nodes, %.300s", nodes.Len(), byName["hostileNav"].String())
	}
	if v, _ := byName["hostileAny"].Get("V"); v.Kind() != protocol.KindMap {
		t.Fatalf("the interface's graph node: %.200s", v.String())
	}
}

// TestHostileDataRewinds: a game holding resources too big to keep and a
// graph with cycles rewinds: the world goes back, and the reply names each
// resource it kept as it was, and why.
func TestHostileDataRewinds(t *testing.T) {
	g := startGame(t, Options{RewindHz: 1000}, func(g *game, _ *ecs.Schedule) {
		ecs.SetResource(g.w, hostileSamples{Values: make([]float64, 2_000_000)})
		nav := hostileNav{Nodes: []*hostileNode{{ID: 0}, {ID: 1}}}
		nav.Nodes[0].Links, nav.Nodes[1].Back = []*hostileNode{nav.Nodes[1]}, nav.Nodes[0]
		ecs.SetResource(g.w, nav)
	})
	c := dial(t, g, protocol.Hello{})
	for g.frames.Load() < 30 {
		time.Sleep(5 * time.Millisecond)
	}
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	now := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }).Tick
	r := c.reply(&protocol.Rewind{Tick: now - 10})
	wantOK(t, "rewind", r)
	if !strings.Contains(r.Message, "resource hostileSamples kept as it is (the rewind's recording did not keep it: inspector.hostileSamples{Values: []float64, 2,000,000 items") {
		t.Fatalf("the rewind's reply does not say the samples stayed: %s", r.Message)
	}
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick <= now-10 })
}

// A physics library's body, kept by pointer in a component: its state is
// unexported.
type (
	libBody struct {
		pos      [2]float64
		contacts []int
		next     *libBody
	}
	hostileRigid struct{ Body *libBody }
)

// TestLibraryStateShownWhileTheGameWritesIt: a component holding a
// library's body shows the body's unexported state in a detail and a
// snapshot, while a system rewrites that state every frame (the race
// detector, in CI, holds the agent to reading copies off the game
// goroutine).
func TestLibraryStateShownWhileTheGameWritesIt(t *testing.T) {
	var holder ecs.Entity
	g := startGame(t, Options{RewindHz: 100}, func(g *game, s *ecs.Schedule) {
		b := &libBody{contacts: make([]int, 4)}
		b.next = b
		holder = g.w.Spawn()
		must(t, ecs.NewMap[hostileRigid](g.w).Add(holder, hostileRigid{Body: b}))
		q := ecs.NewQuery1[hostileRigid](g.w)
		s.Add("physics", func(*ecs.World, *ecs.Commands) {
			for r := range q.All() {
				r.Body.pos[0]++
				r.Body.contacts[int(r.Body.pos[0])%4] = int(r.Body.pos[0])
			}
		}, ecs.Writes[hostileRigid]())
	})
	c := dial(t, g, protocol.Hello{})
	for g.frames.Load() < 20 {
		time.Sleep(5 * time.Millisecond)
	}
	id := c.request(&protocol.GetEntity{Entity: values.Handle(holder)})
	d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
	var body protocol.Value
	for _, cv := range d.Components {
		if cv.Component == "hostileRigid" {
			body, _ = cv.Value.Get("Body")
		}
	}
	if x, ok := body.At("pos[0]"); !ok || x.Float() < 1 {
		t.Fatalf("the body's unexported position: %v", body)
	}
	if next, _ := body.Get("next"); next.Str() != values.RepeatPrefix+"Body" {
		t.Fatalf("the body's pointer to itself: %v, want a repeat of the body", next)
	}
	snapID := c.request(&protocol.SnapshotRequest{})
	snap := c.await(func(m protocol.Message) bool { s, ok := m.(*protocol.Snapshot); return ok && s.ID == snapID }).(*protocol.Snapshot)
	found := false
	for _, tb := range snap.Tables {
		for _, col := range tb.Columns {
			for _, v := range col {
				if c, ok := v.At("Body.contacts"); ok && c.Len() == 4 {
					found = true
				}
			}
		}
	}
	if !found {
		t.Fatal("the snapshot does not show the body's contacts")
	}
}
