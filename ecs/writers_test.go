package ecs

import (
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// TestLastWriteNamesTheWriter: each component's last write and its add are
// attributed to the system, command buffer or actor that made them, with
// the frame, in a parallel stage too, where systems writing different
// components run at once.
func TestLastWriteNamesTheWriter(t *testing.T) {
	type Pos struct{ X float64 }
	type Energy struct{ V float64 }
	w := NewWorld()
	w.Inspect().TrackChanges() // a tool that will ask who wrote
	pos, energy := NewMap[Pos](w), NewMap[Energy](w)
	var ents []Entity
	for range 100 {
		e := w.Spawn()
		must(t, pos.Add(e, Pos{}))
		must(t, energy.Add(e, Energy{V: 10}))
		ents = append(ents, e)
	}
	q := NewQuery1[Pos](w, Mut[Pos]())
	s := NewSchedule()
	s.Add("move", func(w *World, _ *Commands) {
		for it := q.Iter(); it.Next(); {
			it.Get().X++
		}
	}, Writes[Pos]())
	s.Add("hunger", func(w *World, _ *Commands) {
		energy.Get(ents[7]).V--
	}, Writes[Energy]())
	s.Add("spawner", func(w *World, cmds *Commands) {
		if w.Frame() == 2 {
			AddLater(cmds, cmds.Spawn(), Energy{V: 1})
		}
	}, Reads[Energy]())
	for range 3 {
		s.Run(w)
		must(t, w.Tick())
	}
	check := func(what string, got Provenance, by string, frame uint64) {
		t.Helper()
		if !got.Known || got.By != by || got.Frame != frame {
			t.Errorf("%s: %+v, want %q in frame %d", what, got, by, frame)
		}
	}
	wr, add, ok := w.Inspect().LastWrite(ents[7], ComponentIDOf[Energy](w))
	if !ok {
		t.Fatal("no provenance for a live entity's component")
	}
	// The third run belongs to frame 3: the frame in progress while it
	// ran (Frame() was 2), the first whose end shows its writes.
	check("Energy written", wr, "hunger", 3)
	if add.Known && add.By != "outside the schedule" {
		t.Errorf("Energy was added before any run, by the game's setup: %+v", add)
	}
	wr, _, _ = w.Inspect().LastWrite(ents[3], ComponentIDOf[Pos](w))
	check("Pos written", wr, "move", 3)
	spawned := w.Len() == 101
	if !spawned {
		t.Fatalf("the spawner's command did not land: %d alive", w.Len())
	}
	var born Entity
	for it := NewQuery1[Energy](w).Iter(); it.Next(); {
		if it.Get().V == 1 {
			born = it.Entity()
		}
	}
	_, add, _ = w.Inspect().LastWrite(born, ComponentIDOf[Energy](w))
	check("Energy added", add, "spawner (commands)", 3)
	// An edit made as an actor, and a write by the game's own code.
	w.Inspect().ActAs("client 1 (ui)", func() { must(t, energy.Set(ents[9], Energy{V: -1})) })
	wr, _, _ = w.Inspect().LastWrite(ents[9], ComponentIDOf[Energy](w))
	check("Energy edited", wr, "client 1 (ui)", 3) // a tool's edit between frames: the frame shown
	s.Run(w)
	pos.Get(ents[4]).X = 0 // the game, between its schedule and Tick
	wr, _, _ = w.Inspect().LastWrite(ents[4], ComponentIDOf[Pos](w))
	check("Pos by the game", wr, "outside the schedule", 4)
	if _, _, ok := w.Inspect().LastWrite(ents[4], ComponentIDOf[ChildOf](w)); ok {
		t.Error("provenance of a component the entity lacks")
	}
}

// TestLastWriteInParallel: systems of a parallel stage share ticks; their
// declared writes tell them apart.
func TestLastWriteInParallel(t *testing.T) {
	type A struct{ V int }
	type B struct{ V int }
	w := NewWorld()
	w.Inspect().TrackChanges()
	am, bm := NewMap[A](w), NewMap[B](w)
	var ents []Entity
	for range 50 {
		e := w.Spawn()
		must(t, am.Add(e, A{}))
		must(t, bm.Add(e, B{}))
		ents = append(ents, e)
	}
	if runtime.GOMAXPROCS(0) < 2 || debugChecks {
		t.Skip("needs two threads, and a schedule that runs systems at once (ecsdebug runs them one at a time)")
	}
	// Each system waits for the other before writing, so the two runs'
	// ranges of ticks overlap.
	var arrived sync.WaitGroup
	meet := func() {
		arrived.Done()
		arrived.Wait()
	}
	s := NewSchedule()
	s.Parallel = true
	s.Add("writes-a", func(w *World, _ *Commands) {
		meet()
		for _, e := range ents {
			am.Get(e).V++
		}
	}, Writes[A]())
	s.Add("writes-b", func(w *World, _ *Commands) {
		meet()
		for _, e := range ents {
			bm.Get(e).V++
		}
	}, Writes[B]())
	for range 20 {
		arrived.Add(2)
		s.Run(w)
		must(t, w.Tick())
		for _, e := range ents[:5] {
			if wa, _, _ := w.Inspect().LastWrite(e, ComponentIDOf[A](w)); wa.By != "writes-a" {
				t.Fatalf("A of %v written by %+v", e, wa)
			}
			if wb, _, _ := w.Inspect().LastWrite(e, ComponentIDOf[B](w)); wb.By != "writes-b" {
				t.Fatalf("B of %v written by %+v", e, wb)
			}
		}
	}
}

// BenchmarkWriterTracking is the Query2 loop over a million entities run
// as a system of a schedule, which notes its run in the writer log, against
// the same loop called directly, interleaved: the whole cost of a system
// run beyond its work, the writer log included.
func BenchmarkWriterTracking(b *testing.B) {
	const n = 1_000_000
	dw, direct := movingWorld(n)
	w, q := movingWorld(n)
	s := NewSchedule()
	s.Add("move", func(*World, *Commands) { moveAll(q) }, Reads[bVel](), Writes[bPos]())
	s.Run(w)
	moveAll(direct)
	sum := func(w *World) (x float64) {
		for p := range NewQuery1[bPos](w).All() {
			x += p.X
		}
		return x
	}
	if a, d := sum(w), sum(dw); a != d {
		b.Fatalf("the two worlds differ before the loop: %v and %v", a, d)
	}
	paired(b, n, "ns/entity", func() { s.Run(w) }, func() { moveAll(direct) })
}

// TestLastWriteBeforeStampsNamesNoOne: a component nothing read the stamps
// of keeps none; the first lookup of who wrote it starts them and says it
// does not know (rather than name whoever ran last), and the writes after
// are named.
func TestLastWriteBeforeStampsNamesNoOne(t *testing.T) {
	if debugChecks {
		t.Skip("a debug build keeps every component's stamps")
	}
	type Hp struct{ V int }
	w := NewWorld()
	hp := NewMap[Hp](w)
	e := hp.Spawn(Hp{V: 3})
	s := NewSchedule()
	s.Add("hurt", func(w *World, _ *Commands) { hp.Get(e).V-- }, Writes[Hp]())
	s.Run(w)
	must(t, w.Tick())
	id := ComponentIDOf[Hp](w)
	if w.Inspect().ComponentRows(id) != 1 || w.tables[w.records[e.index].table].ticks[0].on {
		t.Fatal("the component keeps stamps before anything read them: not the case under test")
	}
	wr, add, ok := w.Inspect().LastWrite(e, id)
	if !ok || wr.Known || add.Known {
		t.Fatalf("written %+v, added %+v (ok %v) before the stamps began: want not known", wr, add, ok)
	}
	s.Run(w)
	must(t, w.Tick())
	if wr, _, _ = w.Inspect().LastWrite(e, id); !wr.Known || wr.By != "hurt" || wr.Frame != 2 {
		t.Fatalf("written %+v after the stamps began, want hurt in frame 2", wr)
	}
}

// TestWriteHoldersNamesEveryHolderOfTheFrame: the systems that held a
// component for writing during a frame, in the order they ran, commands
// and systems that declared nothing (which may write anything) included;
// not those that only read it, not another frame's.
func TestWriteHoldersNamesEveryHolderOfTheFrame(t *testing.T) {
	type Energy struct{ V float64 }
	type Mood struct{ V int }
	w := NewWorld()
	w.Inspect().TrackChanges()
	energy := NewMap[Energy](w)
	e := w.Spawn()
	must(t, energy.Add(e, Energy{V: 10}))
	s := NewSchedule()
	s.Add("grazing", func(w *World, _ *Commands) {
		if w.Frame() == 1 {
			energy.Get(e).V = -40
		}
	}, Writes[Energy]())
	s.Add("watching", func(w *World, _ *Commands) { _ = energy.Read(e).V }, Reads[Energy]())
	s.Add("moods", func(w *World, _ *Commands) {}, Writes[Mood]())
	s.Add("anything", func(w *World, _ *Commands) {})
	s.Add("reproduction", func(w *World, _ *Commands) { energy.Get(e).V += 0 }, Writes[Energy]())
	for range 3 {
		s.Run(w)
		must(t, w.Tick())
	}
	wr, _, _ := w.Inspect().LastWrite(e, ComponentIDOf[Energy](w))
	if !wr.Known || wr.By != "reproduction" {
		t.Fatalf("the last holder: %+v, want reproduction", wr)
	}
	got := w.Inspect().WriteHolders(ComponentIDOf[Energy](w), wr.Frame)
	if want := []string{"grazing", "anything", "reproduction"}; !slices.Equal(got, want) {
		t.Fatalf("the holders of Energy in frame %d: %v, want %v", wr.Frame, got, want)
	}
	if got := w.Inspect().WriteHolders(ComponentIDOf[Energy](w), wr.Frame+10); len(got) != 0 {
		t.Errorf("a frame not run has holders %v", got)
	}
}

// TestSystemRunSaysTheTypesItWrites: a system's end names the types it
// declared it writes, a resource's included (the kernel keeps no stamps
// for resources: a tool compares those a run may have changed); a system
// that declared nothing names none, and may have written anything.
func TestSystemRunSaysTheTypesItWrites(t *testing.T) {
	type Grid struct{ Cells []Entity }
	type Pos struct{ X float64 }
	w := NewWorld()
	SetResource(w, Grid{})
	NewMap[Pos](w)
	s := NewSchedule()
	s.Add("store", func(*World, *Commands) {}, Writes[Grid](), Reads[Pos]())
	s.Add("anything", func(*World, *Commands) {})
	got := map[string][]reflect.Type{}
	s.SystemEnd = func(_ *World, run SystemRun) { got[run.Name] = run.WriteTypes }
	s.Run(w)
	if ts := got["store"]; len(ts) != 1 || ts[0] != reflect.TypeFor[Grid]() {
		t.Fatalf("store declared Writes[Grid], its run says %v", ts)
	}
	if ts, ok := got["anything"]; !ok || ts != nil {
		t.Fatalf("a system that declared nothing says it writes %v", ts)
	}
}
