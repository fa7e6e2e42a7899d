package graves

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

type hp struct{ HP int }

type blob struct{ Data []byte }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func noOne(ecs.Entity, ecs.ComponentID, uint32, uint32) (written, added *protocol.Provenance) {
	return nil, nil
}

// TestYardKeepsTheLastState: a despawned entity's components are kept as
// its despawn found them, with who despawned it and when; a later value
// written before the despawn is the one kept, and the handle of the
// slot's next life finds nothing.
func TestYardKeepsTheLastState(t *testing.T) {
	w := ecs.NewWorld()
	var marked uint32 // the write's mark, as the despawn found it
	y := New(w, func(_ ecs.Entity, id ecs.ComponentID, written, _ uint32) (*protocol.Provenance, *protocol.Provenance) {
		return &protocol.Provenance{By: "mark " + strconv.Itoa(int(written))}, nil
	})
	m := ecs.NewMap[hp](w)
	e := w.Spawn()
	must(t, m.Add(e, hp{HP: 3}))
	m.Get(e).HP = -7
	marked, _, _ = w.Inspect().Marks(e, ecs.ComponentIDOf[hp](w))
	must(t, w.Despawn(e))
	g, ok := y.Find(e)
	if !ok || g.Died.By != "external" || g.Died.Tick != 1 || len(g.Components) != 1 || g.Components[0].Component != "hp" {
		t.Fatalf("the grave: %+v (%v)", g, ok)
	}
	if v, _ := g.Components[0].Value.Get("HP"); v.Int() != -7 || marked == 0 || g.Components[0].Written == nil || g.Components[0].Written.By != "mark "+strconv.Itoa(int(marked)) {
		t.Fatalf("its HP: %v written %+v, want -7 named from the write's mark %d", g.Components[0].Value, g.Components[0].Written, marked)
	}
	again := w.Spawn()
	if again.Index() == e.Index() {
		if _, ok := y.Find(again); ok {
			t.Fatal("the slot's next life has a grave")
		}
	}
}

// TestYardBounds: a mass despawn keeps MaxPerFrame of its entities and
// counts the rest; despawns over many frames keep the newest MaxGraves;
// big values keep the yard within MaxBytes.
func TestYardBounds(t *testing.T) {
	w := ecs.NewWorld()
	y := New(w, noOne)
	m := ecs.NewMap[hp](w)
	for range 10_000 {
		must(t, m.Add(w.Spawn(), hp{HP: 1}))
	}
	if n := w.DespawnWhere(ecs.Filter{With: []ecs.ComponentID{ecs.ComponentIDOf[hp](w)}}); n != 10_000 {
		t.Fatalf("despawned %d", n)
	}
	if n, _ := y.Len(); n != MaxPerFrame || y.Missed != 10_000-MaxPerFrame {
		t.Fatalf("a mass despawn kept %d graves, missed %d; want %d and %d", n, y.Missed, MaxPerFrame, 10_000-MaxPerFrame)
	}
	var last ecs.Entity
	for range 40 {
		for range 200 {
			last = w.Spawn()
			must(t, m.Add(last, hp{HP: 2}))
			must(t, w.Despawn(last))
		}
		must(t, w.Tick())
	}
	if n, _ := y.Len(); n != MaxGraves {
		t.Fatalf("kept %d graves, want the newest %d", n, MaxGraves)
	}
	if _, ok := y.Find(last); !ok {
		t.Fatal("the newest grave is gone")
	}
	b := ecs.NewMap[blob](w)
	for range 400 {
		e := w.Spawn()
		must(t, b.Add(e, blob{Data: []byte(strings.Repeat("x", 60_000))}))
		must(t, w.Despawn(e))
		must(t, w.Tick())
	}
	if _, bytes := y.Len(); bytes > MaxBytes {
		t.Fatalf("the yard holds %d bytes, over %d", bytes, MaxBytes)
	}
}

// TestYardSince: a stream's frames take the graves dug since their last
// one, oldest first, at most protocol.MaxRecordedDead (the newest).
func TestYardSince(t *testing.T) {
	w := ecs.NewWorld()
	y := New(w, noOne)
	var dead []ecs.Entity
	for range 3 {
		e := w.Spawn()
		dead = append(dead, e)
		must(t, w.Despawn(e))
	}
	got, seq := y.Since(0)
	if len(got) != 3 || seq != 3 || got[0].Entity.Index() != dead[0].Index() || got[2].Entity.Index() != dead[2].Index() {
		t.Fatalf("Since(0) = %d graves (seq %d): %+v", len(got), seq, got)
	}
	if again, s := y.Since(seq); len(again) != 0 || s != seq {
		t.Fatalf("nothing new, yet %d graves", len(again))
	}
	for range 3 {
		for range 200 {
			must(t, w.Despawn(w.Spawn()))
		}
		must(t, w.Tick())
	}
	got, seq = y.Since(seq)
	if len(got) != protocol.MaxRecordedDead || seq != 603 || got[len(got)-1].Died.Tick != 3 {
		t.Fatalf("after 600 deaths: %d graves, seq %d", len(got), seq)
	}
}

// TestYardOlderGraveLeavesTheNewerOnesIndex: a handle buried twice (a
// rewind brings an entity back and it dies again) is found as its newer
// grave after the older one is let go past the bounds.
func TestYardOlderGraveLeavesTheNewerOnesIndex(t *testing.T) {
	w := ecs.NewWorld()
	y := New(w, noOne)
	m := ecs.NewMap[hp](w)
	e := w.Spawn()
	must(t, m.Add(e, hp{HP: 1}))
	y.bury(e, w.Frame(), "the first life") // as its despawn before a rewind did
	must(t, m.Add(e, hp{HP: 2}))
	must(t, w.Despawn(e))
	for i := 0; i < MaxGraves-1; i++ { // exactly enough to let the first grave go
		if i%MaxPerFrame == 0 {
			must(t, w.Tick())
		}
		must(t, w.Despawn(w.Spawn()))
	}
	if n, _ := y.Len(); n != MaxGraves {
		t.Fatalf("kept %d graves, want %d", n, MaxGraves)
	}
	g, ok := y.Find(e)
	if !ok || g.Died.By != "external" {
		t.Fatalf("the handle's newer grave: %+v (%v), want the one its last despawn left", g, ok)
	}
	if v, _ := g.Components[0].Value.Get("HP"); v.Int() != 2 {
		t.Fatalf("its HP: %v, want 2", g.Components[0].Value)
	}
}

// TestYardAllowance: with no time allowed, a frame keeps its first
// MinPerFrame despawns and counts the rest as missed; a new frame starts
// again; no bound keeps MaxPerFrame.
func TestYardAllowance(t *testing.T) {
	w := ecs.NewWorld()
	y := New(w, noOne)
	m := ecs.NewMap[hp](w)
	despawn := func(n int) {
		for range n {
			e := w.Spawn()
			must(t, m.Add(e, hp{HP: 1}))
			must(t, w.Despawn(e))
		}
		must(t, w.Tick())
	}
	y.Allow(0)
	despawn(100)
	if n, _ := y.Len(); n != MinPerFrame || y.Missed != 100-MinPerFrame {
		t.Fatalf("no time allowed: kept %d, missed %d; want %d and %d", n, y.Missed, MinPerFrame, 100-MinPerFrame)
	}
	despawn(100)
	if n, _ := y.Len(); n != 2*MinPerFrame {
		t.Fatalf("a second frame: kept %d in all, want %d", n, 2*MinPerFrame)
	}
	y.Allow(-1)
	despawn(300)
	if n, _ := y.Len(); n != 2*MinPerFrame+MaxPerFrame {
		t.Fatalf("no bound: kept %d in all, want %d", n, 2*MinPerFrame+MaxPerFrame)
	}
}

// TestYardAllowanceIsPerFrame: the time a frame's burials may take is the
// frame's own: frames that each fit it keep every despawn, however many
// frames go by (the yard's clock here is the test's: a burial takes 0.5 ms);
// the time they took is told once to the agent's upkeep (TakeSpent).
func TestYardAllowanceIsPerFrame(t *testing.T) {
	w := ecs.NewWorld()
	y := New(w, noOne)
	now := time.Unix(1000, 0)
	y.clock = func() time.Time { now = now.Add(500 * time.Microsecond); return now }
	m := ecs.NewMap[hp](w)
	y.Allow(20 * time.Millisecond)
	for range 100 {
		for range 10 {
			e := w.Spawn()
			must(t, m.Add(e, hp{HP: 1}))
			must(t, w.Despawn(e))
		}
		must(t, w.Tick())
	}
	if y.Missed != 0 {
		t.Fatalf("100 frames of 10 despawns of 0.5 ms, each frame within its 20 ms: %d not kept", y.Missed)
	}
	if spent := y.TakeSpent(); spent != 1000*500*time.Microsecond {
		t.Fatalf("1,000 burials of 0.5 ms reported as %v", spent)
	}
	if spent := y.TakeSpent(); spent != 0 {
		t.Fatalf("no burial since the last take, yet %v", spent)
	}
	y.Allow(2 * time.Millisecond) // 4 despawns' worth
	for range 10 {
		e := w.Spawn()
		must(t, m.Add(e, hp{HP: 1}))
		must(t, w.Despawn(e))
	}
	if want := uint64(10 - max(MinPerFrame, 4)); y.Missed != want {
		t.Fatalf("a frame of 10 despawns of 0.5 ms within 2 ms: %d not kept, want %d", y.Missed, want)
	}
}

// label is a component that holds a string: its bytes live apart from it.
type label struct {
	N    int
	Name string
}

// TestAGraveKeepsItsStrings: a despawned entity's string survives in its
// grave however the collector runs and reuses memory: a component with a
// string is kept where the collector sees the string's bytes, not in the
// block of plain values it does not scan (a grave read back after a few
// collections held freed memory: "found pointer to free object").
func TestAGraveKeepsItsStrings(t *testing.T) {
	w := ecs.NewWorld()
	y := New(w, noOne)
	m := ecs.NewMap[label](w)
	var ents []ecs.Entity
	for i := range 200 { // within a frame's graves
		e := w.Spawn()
		must(t, m.Add(e, label{N: i, Name: strings.Repeat(strconv.Itoa(i%10), 40+i%7) + "!"}))
		ents = append(ents, e)
	}
	for _, e := range ents {
		must(t, w.Despawn(e))
	}
	must(t, w.Tick()) // the tables' rows are reused by the next spawns
	for round := range 4 {
		runtime.GC()
		junk := make([][]byte, 0, 2000) // the freed bytes taken again, filled
		for range 2000 {
			junk = append(junk, []byte(strings.Repeat("Z", 47)))
		}
		for i, e := range ents {
			g, ok := y.Find(e)
			if !ok {
				t.Fatalf("no grave of %v", e)
			}
			name, _ := g.Components[0].Value.Get("Name")
			if want := strings.Repeat(strconv.Itoa(i%10), 40+i%7) + "!"; name.Str() != want {
				t.Fatalf("round %d: %v's Name in its grave is %q, want %q", round, e, name.Str(), want)
			}
		}
		runtime.KeepAlive(junk)
	}
}
