package ecs

import "testing"

func TestJournalAttributionAndWrap(t *testing.T) {
	w := NewWorld()
	w.Inspect().EnableJournal(4)
	pos := NewMap[Position](w)
	e := w.Spawn()                  // external
	must(t, pos.Add(e, Position{})) // external add
	c := w.NewCommands("hunting")
	RemoveLater[Position](c, e)
	c.Despawn(e)
	must(t, c.Apply())
	got := w.Inspect().Journal()
	want := []struct {
		op     JournalOp
		comp   int
		system string
	}{
		{OpSpawn, NoComponent, "external"},
		{OpAdd, int(pos.ID()), "external"},
		{OpRemove, int(pos.ID()), "hunting"},
		{OpDespawn, NoComponent, "hunting"},
	}
	if len(got) != len(want) {
		t.Fatalf("journal = %+v", got)
	}
	for i, w := range want {
		if got[i].Op != w.op || got[i].Component != w.comp || got[i].System != w.system || got[i].Entity != e || got[i].Seq != uint64(i+1) {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], w)
		}
	}
	// Wrap-around: capacity 4 keeps the newest four, oldest first.
	must(t, w.Tick())
	for range 3 {
		w.Spawn()
	}
	got = w.Inspect().Journal()
	if len(got) != 4 || got[0].Seq != 4 || got[3].Seq != 7 || got[0].Op != OpDespawn || got[3].Frame != 2 {
		// Spawned after the first Tick: they belong to frame 2, the
		// first whose end shows them.
		t.Errorf("after wrap: %+v", got)
	}
	if since := w.Inspect().JournalSince(6); len(since) != 1 || since[0].Seq != 7 {
		t.Errorf("JournalSince(6) = %+v", since)
	}
	w.Inspect().EnableJournal(0)
	w.Spawn()
	if w.Inspect().Journal() != nil {
		t.Error("journal still on")
	}
}

func TestJournalSparseAndBatch(t *testing.T) {
	w := NewWorld()
	w.Inspect().EnableJournal(100)
	NewMap2[Position, Fleeing](w).SpawnBatch(2, nil)
	ops := map[JournalOp]int{}
	for _, e := range w.Inspect().Journal() {
		ops[e.Op]++
	}
	if ops[OpSpawn] != 2 || ops[OpAdd] != 2 {
		t.Errorf("ops = %v", ops)
	}
}

func TestJournalRecordPacking(t *testing.T) {
	for _, c := range []struct {
		comp int
		op   JournalOp
	}{{NoComponent, OpSpawn}, {0, OpAdd}, {MaxComponents - 1, OpRemove}, {17, OpDespawn}} {
		r := journalRec{meta: packMeta(1<<40+9, c.comp, c.op, 65535)}
		if r.comp() != c.comp || r.op() != c.op || r.actor() != 65535 || r.frame() != 9 {
			t.Errorf("packed %d %v, read back %d %v actor %d frame %d", c.comp, c.op, r.comp(), r.op(), r.actor(), r.frame())
		}
	}
	now := uint64(1)<<32 + 5 // the frame counter has passed 2^32
	for _, f := range []uint64{now, now - 3, now - 10, 1<<32 - 2} {
		if got := frameOf(uint32(f), now); got != f {
			t.Errorf("frame %d read back as %d at frame %d", f, got, now)
		}
	}
}
