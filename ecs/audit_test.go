package ecs

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestStaleAudit: uses of dead handles are counted by who made them, with
// the newest kept; checks are not uses; off, nothing is counted.
func TestStaleAudit(t *testing.T) {
	type HP struct{ V int }
	w := NewWorld()
	hp := NewMap[HP](w)
	alive := w.Spawn()
	must(t, hp.Add(alive, HP{V: 1}))
	dead := w.Spawn()
	must(t, hp.Add(dead, HP{V: 2}))
	must(t, w.Despawn(dead))
	reborn := w.Spawn() // the dead handle's slot, a generation on
	must(t, hp.Add(reborn, HP{V: 3}))
	s := NewSchedule()
	s.Parallel = false
	s.Add("hunt", func(w *World, _ *Commands) {
		for range 3 {
			if hp.Get(dead) != nil {
				t.Error("Get of a dead handle found a value")
			}
		}
	}, Writes[HP]())
	s.Add("look", func(w *World, _ *Commands) {
		_ = hp.Read(dead)
		_ = w.Alive(dead) // a check, not a use
		_ = hp.Has(dead)
	}, Reads[HP]())
	s.Add("cleanup", func(w *World, cmds *Commands) { cmds.Despawn(dead) }, Reads[HP]())
	s.Run(w) // the audit is off: nothing counted
	if r := w.Inspect().StaleUses(); r.Total != 0 {
		t.Fatalf("the audit counted while off: %+v", r)
	}
	w.Inspect().EnableStaleAudit(true)
	s.Run(w)
	w.Inspect().ActAs("client 1 (ui)", func() {
		if err := hp.Set(dead, HP{}); err == nil {
			t.Error("Set of a dead handle succeeded")
		}
	})
	_ = hp.Get(dead) // the game's own code
	if err := w.CheckAlive(dead); err == nil {
		t.Fatal("CheckAlive of a dead handle")
	}
	r := w.Inspect().StaleUses()
	want := map[string]uint64{"hunt": 3, "look": 1, "cleanup": 1, "client 1 (ui)": 1, "outside the schedule": 1}
	got := map[string]uint64{}
	for _, c := range r.By {
		got[c.By] = c.Count
	}
	if r.Total != 7 || len(got) != len(want) {
		t.Fatalf("report %+v, want %v", r, want)
	}
	for by, n := range want {
		if got[by] != n {
			t.Errorf("%s: %d uses, want %d", by, got[by], n)
		}
	}
	if r.By[0].By != "hunt" {
		t.Errorf("the top offender is %q, want hunt", r.By[0].By)
	}
	last := r.Recent[len(r.Recent)-1]
	if last.Handle != dead || last.Generation != reborn.Generation() || last.By != "outside the schedule" {
		t.Errorf("the newest use: %+v", last)
	}
}

// BenchmarkStaleAudit is Map.Get on dead handles with the audit on,
// against the same with it off, interleaved.
func BenchmarkStaleAudit(b *testing.B) {
	const n = 1000
	type HP struct{ V int }
	setup := func(on bool) (*Map[HP], []Entity) {
		w := NewWorld()
		w.Inspect().EnableStaleAudit(on)
		m := NewMap[HP](w)
		var ents []Entity
		for range n {
			e := w.Spawn()
			if err := m.Add(e, HP{}); err != nil {
				b.Fatal(err)
			}
			ents = append(ents, e)
		}
		for _, e := range ents {
			if err := w.Despawn(e); err != nil {
				b.Fatal(err)
			}
		}
		return m, ents
	}
	on, onEnts := setup(true)
	off, offEnts := setup(false)
	get := func(m *Map[HP], ents []Entity) func() {
		return func() {
			for _, e := range ents {
				if m.Get(e) != nil {
					b.Fatal("a dead handle's value")
				}
			}
		}
	}
	get(on, onEnts)()
	if on.w.Inspect().StaleUses().Total != n || off.w.Inspect().StaleUses().Total != 0 {
		b.Fatal("the audits do not count as they should before the loop")
	}
	paired(b, n, "ns/entity", get(on, onEnts), get(off, offEnts))
}

// TestStaleAuditSkipsHandlesNeverIssued: the zero handle, a slot the world
// never reached and a generation it never issued are not dead handles:
// the audit does not count them (CheckAlive says what they are); a dead
// one still counts.
func TestStaleAuditSkipsHandlesNeverIssued(t *testing.T) {
	type HP struct{ V int }
	w := NewWorld()
	hp := NewMap[HP](w)
	e := w.Spawn()
	must(t, hp.Add(e, HP{V: 1}))
	w.Inspect().EnableStaleAudit(true)
	for _, never := range []Entity{{}, {index: 9999, gen: 1}, {index: e.index, gen: e.gen + 5}} {
		if hp.Get(never) != nil {
			t.Fatalf("Get(%v) found a value", never)
		}
	}
	if r := w.Inspect().StaleUses(); r.Total != 0 {
		t.Fatalf("handles never issued were counted as dead: %+v", r)
	}
	must(t, w.Despawn(e))
	_ = hp.Get(e)
	if r := w.Inspect().StaleUses(); r.Total != 1 {
		t.Fatalf("a dead handle: %d uses counted, want 1", r.Total)
	}
}

// TestStaleAuditInAParallelStage: systems running at once, one of which
// uses a dead handle: the first use names the systems running then (no
// worker asked its goroutine before a use was seen: it costs a stack
// trace), and every use after names that one alone, not "a or b".
func TestStaleAuditInAParallelStage(t *testing.T) {
	if debugChecks {
		t.Skip("a debug build runs a stage's systems one at a time: the two never meet")
	}
	type HP struct{ V int }
	type Pos struct{ X int }
	w := NewWorld()
	hp, pos := NewMap[HP](w), NewMap[Pos](w)
	dead, live := w.Spawn(), w.Spawn()
	must(t, hp.Add(dead, HP{V: 2}))
	must(t, pos.Add(live, Pos{}))
	must(t, w.Despawn(dead))
	w.Inspect().EnableStaleAudit(true)
	s := NewSchedule()
	s.Parallel = true
	var started, used atomic.Int32
	meet := func(n *atomic.Int32) { // each waits for the other: they overlap
		n.Add(1)
		for n.Load() < 2 {
			runtime.Gosched()
		}
	}
	s.Add("hunt", func(w *World, _ *Commands) {
		meet(&started)
		_ = hp.Get(dead)
		meet(&used)
	}, Writes[HP]())
	s.Add("drift", func(w *World, _ *Commands) {
		meet(&started)
		pos.Get(live).X++ // no stale use
		meet(&used)
	}, Writes[Pos]())
	for run := range 2 {
		started.Store(0)
		used.Store(0)
		done := make(chan struct{})
		go func() { s.Run(w); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Skip("the two systems did not run at once on this machine")
		}
		if r := w.Inspect().StaleUses(); run == 0 && (r.Total != 1 || r.Recent[0].By != "drift or hunt") {
			t.Fatalf("the first stale use in a parallel stage: %+v, want one by drift or hunt", r)
		}
	}
	r := w.Inspect().StaleUses()
	if r.Total != 2 || r.Recent[1].By != "hunt" {
		t.Fatalf("the second stale use in a parallel stage: %+v, want it by hunt", r)
	}
}
