package ecs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// twin is one of two worlds built by the same random history: one gets a
// batch operation, the other the single operations it stands for.
type twin struct {
	k       *kernel
	changed *Query1[Position] // keeps a change log on Position
}

// newTwin makes a kernel world for the twin tests, every component keeping
// stamps when stampAll, else only those read (Position, by the Changed
// query).
func newTwin(stampAll bool) *twin {
	k := newKernel()
	if stampAll {
		k.w.trackAllChanges()
	}
	k.w.Inspect().EnableJournal(1 << 14)
	return &twin{k: k, changed: NewQuery1[Position](k.w, Changed[Position]())}
}

// batchComps are the components a batch test adds and removes: table
// components with and without pointers, and a sparse one (Fleeing).
var batchComps = []string{"Position", "Health", "Frozen", "Name", "Fleeing"}

func (tw *twin) id(name string) ComponentID {
	switch name {
	case "Position":
		return tw.k.pos.ID()
	case "Health":
		return tw.k.hp.ID()
	case "Frozen":
		return tw.k.froz.ID()
	case "Name":
		return tw.k.name.ID()
	default:
		return tw.k.flee.ID()
	}
}

func (tw *twin) ids(names []string) []ComponentID {
	var out []ComponentID
	for _, n := range names {
		out = append(out, tw.id(n))
	}
	return out
}

// history is a random sequence of steps, drawn once and played on both
// twins: spawns, adds, removes, despawns, query runs writing every row (chunk
// stamps), writes through maps, parents.
type step struct {
	op    int
	slot  int
	comps []string
	v     int
}

func drawHistory(rt *rapid.T) []step {
	n := rapid.IntRange(1, 60).Draw(rt, "steps")
	out := make([]step, n)
	for i := range out {
		out[i] = step{
			op:    rapid.IntRange(0, 8).Draw(rt, "op"),
			slot:  rapid.IntRange(0, 200).Draw(rt, "slot"),
			comps: rapid.SliceOfDistinct(rapid.SampledFrom(batchComps), rapid.ID[string]).Draw(rt, "comps"),
			v:     rapid.IntRange(0, 99).Draw(rt, "v"),
		}
	}
	return out
}

func (tw *twin) play(t *rapid.T, h []step) {
	w, k := tw.k.w, tw.k
	alive := func() []Entity {
		var out []Entity
		for i := range w.records {
			if e := (Entity{index: uint32(i), gen: w.records[i].gen}); w.Alive(e) {
				out = append(out, e)
			}
		}
		return out
	}
	for _, s := range h {
		live := alive()
		pick := func() (Entity, bool) {
			if len(live) == 0 {
				return Entity{}, false
			}
			return live[s.slot%len(live)], true
		}
		switch s.op {
		case 0, 1: // spawn a few with these components
			for j := range 1 + s.slot%40 {
				e := w.Spawn()
				for _, c := range s.comps {
					mustDo(t, k.add(e, c, s.v+j))
				}
			}
		case 2:
			if e, ok := pick(); ok {
				for _, c := range s.comps {
					mustDo(t, k.add(e, c, s.v))
				}
			}
		case 3:
			if e, ok := pick(); ok {
				for _, c := range s.comps {
					mustDo(t, k.remove(e, c))
				}
			}
		case 4:
			if e, ok := pick(); ok {
				mustDo(t, w.Despawn(e))
			}
		case 5: // a run writing every Position: whole chunks stamped
			it := k.write.Iter()
			for it.Next() {
				it.Get().Y++
			}
			tw.changed.Iter().Close()
		case 6:
			if e, ok := pick(); ok {
				if p := k.pos.Get(e); p != nil {
					p.Y = float64(s.v)
				}
			}
		case 7:
			if len(live) > 1 {
				child, parent := live[s.slot%len(live)], live[(s.slot+s.v+1)%len(live)]
				if child != parent {
					if err := w.SetParent(child, parent); err != nil && !isCycle(err) {
						t.Fatal(err)
					}
				}
			}
		case 8: // slots near their last generation, reused: the next despawn of one retires it or the most-recycled list takes it
			for j, slot := range w.free[max(len(w.free)-1-s.slot%4, 0):] {
				w.records[slot].gen = maxGeneration - uint32(j%2)
			}
			for range 1 + s.slot%4 {
				e := w.Spawn()
				for _, c := range s.comps {
					mustDo(t, k.add(e, c, s.v))
				}
			}
			w.Inspect().MostRecycled(4) // kept from the first ask on
		}
	}
}

// isCycle reports whether err is SetParent refusing a cycle.
func isCycle(err error) bool { return strings.Contains(err.Error(), "ancestor") }

func mustDo(t *rapid.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// state is everything a batch operation must leave as the single operations
// do: each slot's generation and liveness, each live entity's components
// with values, ticks, its row in the table of its components, its parent;
// the free list, the slots retired and the most recycled; the journal;
// what the Changed query sees next.
func (tw *twin) state() string {
	w, k := tw.k.w, tw.k
	var b []byte
	for i := range w.records {
		rec := &w.records[i]
		e := Entity{index: uint32(i), gen: rec.gen}
		b = fmt.Appendf(b, "%d gen %d", i, rec.gen)
		if !w.Alive(e) {
			b = append(b, " dead\n"...)
			continue
		}
		t := w.tables[rec.table]
		b = fmt.Appendf(b, " row %d of %v", rec.row, t.ids)
		for j, id := range t.ids {
			b = fmt.Appendf(b, " [%d %v", id, t.cols[j].value(int(rec.row)))
			if tk := t.ticks[j]; tk.on {
				b = fmt.Appendf(b, " ch %d ad %d", tk.effective(int(rec.row)), tk.effectiveAdded(int(rec.row)))
			}
			b = append(b, ']')
		}
		if f := k.flee.Read(e); f != nil {
			ch, ad, _ := w.sparse[k.flee.ID()].ticks(e)
			b = fmt.Appendf(b, " [flee %d ch %d ad %d]", f.Since, ch, ad)
		}
		if p, ok := w.Parent(e); ok {
			b = fmt.Appendf(b, " parent %v", p)
		}
		b = fmt.Appendf(b, " kids %v\n", w.Children(e))
	}
	b = fmt.Appendf(b, "free %v retired %d most recycled %v\n", w.free, w.retired, w.Inspect().MostRecycled(4))
	for _, j := range w.Inspect().Journal() {
		b = fmt.Appendf(b, "%d %d %s %v %d %s\n", j.Seq, j.Frame, j.Op, j.Entity, j.Component, j.System)
	}
	var changed []Entity
	it := tw.changed.Iter()
	for it.Next() {
		changed = append(changed, it.Entity())
	}
	slices.SortFunc(changed, func(a, b Entity) int { return int(a.index) - int(b.index) })
	b = fmt.Appendf(b, "changed %v\n", changed)
	return string(b)
}

// batchOp is one batch operation, done as a batch on one twin and as the
// single operations on the other.
type batchOp struct {
	kind        string
	with, wout  []string
	changedPos  bool
	add, remove []string
	v           int
	commands    bool
}

func (op batchOp) filter(tw *twin) Filter {
	f := Filter{With: tw.ids(op.with), Without: tw.ids(op.wout)}
	if op.changedPos {
		f.Changed, f.Since = []ComponentID{tw.id("Position")}, tw.k.w.changeStamp.Load()-1
	}
	return f
}

func (op batchOp) batch(t *rapid.T, tw *twin) int {
	w, f := tw.k.w, op.filter(tw)
	if op.commands {
		c := w.NewCommands("batcher")
		switch op.kind {
		case "despawn":
			c.DespawnWhere(f)
		default:
			c.ExchangeWhere(f, tw.ids(op.add), tw.ids(op.remove))
		}
		mustDo(t, c.Apply())
		return -1
	}
	var n int
	var err error
	switch op.kind {
	case "despawn":
		n = w.DespawnWhere(f)
	case "exchange":
		n, err = w.ExchangeWhere(f, tw.ids(op.add), tw.ids(op.remove))
	case "add health":
		n, err = tw.k.hp.AddWhere(f, Health{HP: op.v})
	case "add name func":
		n, err = tw.k.name.AddWhereFunc(f, func(e Entity, v *Name) { v.Value += strconv.Itoa(int(e.index)) })
	case "remove name":
		n, err = tw.k.name.RemoveWhere(f)
	}
	mustDo(t, err)
	return n
}

func (op batchOp) single(t *rapid.T, tw *twin) int {
	w, f := tw.k.w, op.filter(tw)
	var run func()
	if op.commands {
		// The single operations as the command buffer's own, so the journal
		// names the same actor.
		var act *acting
		run = func() { a := w.actingAs(w.actorID("batcher"), true); act = &a }
		defer func() {
			if act != nil {
				act.end()
			}
		}()
	}
	if run != nil {
		run()
	}
	ents, _ := w.Inspect().Scan(f, 0, -1)
	ins := w.Inspect()
	add, remove := sortedIDs(tw.ids(op.add)), sortedIDs(tw.ids(op.remove))
	for _, e := range ents {
		switch op.kind {
		case "despawn":
			mustDo(t, w.Despawn(e))
		case "exchange":
			for _, id := range add {
				mustDo(t, ins.AddID(e, id))
			}
			for _, id := range remove {
				mustDo(t, ins.RemoveID(e, id))
			}
		case "add health":
			mustDo(t, tw.k.hp.Add(e, Health{HP: op.v}))
		case "add name func":
			if !tw.k.name.Has(e) {
				mustDo(t, ins.AddID(e, tw.k.name.ID()))
			}
			p := tw.k.name.Get(e)
			p.Value += strconv.Itoa(int(e.index))
		case "remove name":
			mustDo(t, tw.k.name.Remove(e))
		}
	}
	if op.commands {
		return -1
	}
	return len(ents)
}

// TestBatchEqualsSingleOperations: a batch operation over a filter leaves
// the world exactly as the single operations on the entities the filter
// passes, in Scan's order: handles, generations, free list, rows, values,
// change and add ticks, parents, the journal, and what a Changed query
// sees next.
func TestBatchEqualsSingleOperations(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := drawHistory(rt)
		op := batchOp{
			kind:       rapid.SampledFrom([]string{"despawn", "exchange", "add health", "add name func", "remove name"}).Draw(rt, "kind"),
			with:       rapid.SliceOfDistinct(rapid.SampledFrom(batchComps), rapid.ID[string]).Draw(rt, "with"),
			wout:       rapid.SliceOfDistinct(rapid.SampledFrom(batchComps), rapid.ID[string]).Draw(rt, "without"),
			changedPos: rapid.IntRange(0, 5).Draw(rt, "changed") == 0,
			v:          rapid.IntRange(0, 99).Draw(rt, "value"),
		}
		if op.kind == "exchange" || op.kind == "despawn" {
			op.commands = rapid.IntRange(0, 3).Draw(rt, "commands") == 0
		}
		if op.kind == "exchange" {
			both := rapid.SliceOfDistinct(rapid.SampledFrom(batchComps), rapid.ID[string]).Draw(rt, "exchanged")
			for _, c := range both {
				if rapid.Bool().Draw(rt, "add "+c) {
					op.add = append(op.add, c)
				} else {
					op.remove = append(op.remove, c)
				}
			}
		}
		stampAll := rapid.Bool().Draw(rt, "stampAll")
		a, b := newTwin(stampAll), newTwin(stampAll)
		a.play(rt, h)
		b.play(rt, h)
		if sa, sb := a.state(), b.state(); sa != sb {
			rt.Fatalf("the twins differ before the batch:\n%s\n%s", sa, sb)
		}
		na, nb := op.batch(rt, a), op.single(rt, b)
		if na != nb {
			rt.Fatalf("%+v: batch says %d entities, the single operations saw %d", op, na, nb)
		}
		if sa, sb := a.state(), b.state(); sa != sb {
			rt.Fatalf("%+v: batch and single operations differ:\nbatch:\n%s\nsingle:\n%s", op, sa, sb)
		}
		// And after: the next spawns get the same handles.
		if ea, eb := a.k.w.Spawn(), b.k.w.Spawn(); ea != eb {
			rt.Fatalf("next spawn: %v after the batch, %v after the single operations", ea, eb)
		}
	})
}

// TestBatchRefusals: an exchange of ChildOf or of a component both ways is
// refused with an error and changes nothing; a batch during a query's
// iteration, and a structural change from AddWhereFunc's init, panic with
// the fix named.
func TestBatchRefusals(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	pos.SpawnBatch(10, nil)
	id, hp := pos.ID(), ComponentIDOf[Health](w)
	for _, c := range []struct {
		add, remove []ComponentID
		want        string
	}{
		{[]ComponentID{childOfID}, nil, "SetParent"},
		{nil, []ComponentID{childOfID}, "SetParent"},
		{[]ComponentID{hp}, []ComponentID{hp}, "both added and removed"},
	} {
		n, err := w.ExchangeWhere(Filter{}, c.add, c.remove)
		if err == nil || !strings.Contains(err.Error(), c.want) || n != 0 {
			t.Errorf("ExchangeWhere(%v, %v) = %d, %v; want an error saying %q", c.add, c.remove, n, err, c.want)
		}
	}
	if got, _ := w.Inspect().Scan(Filter{With: []ComponentID{id}}, 0, -1); len(got) != 10 || w.Has(got[0], hp) {
		t.Fatalf("a refused exchange changed the world: %d with Position", len(got))
	}
	q := NewQuery1[Position](w)
	r := panicOf(func() {
		it := q.Iter()
		defer it.Close()
		it.Next()
		w.DespawnWhere(Filter{})
	})
	if s, _ := r.(string); !strings.Contains(s, "DespawnWhere during query iteration") || !strings.Contains(s, "Commands") {
		t.Fatalf("DespawnWhere while iterating: %v", r)
	}
	r = panicOf(func() {
		_, _ = NewMap[Health](w).AddWhereFunc(Filter{}, func(Entity, *Health) { w.Spawn() })
	})
	if s, _ := r.(string); !strings.Contains(s, "Spawn") {
		t.Fatalf("Spawn from AddWhereFunc's init: %v", r)
	}
	if w.Len() != 10 {
		t.Fatalf("%d entities after the refusals, want 10", w.Len())
	}
}

// panicOf runs f and returns what it panicked with, or nil.
func panicOf(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// TestBatchIntoAnEmptyTableKeepsRoomTogether: a batch moving a whole table
// into an empty one hands the rows over without copying them, and both
// tables still have room in every column, values and stamps, for as many
// rows as their entity lists (what Reserve and a batch spawn count on),
// with the values and entities where they were.
func TestBatchIntoAnEmptyTableKeepsRoomTogether(t *testing.T) {
	type a struct{ V int64 }
	type b struct{ V [3]float64 }
	type c struct{ V int32 }
	type d struct{ V uint16 }
	w := NewWorld()
	w.trackAllChanges() // stamps keep room with their values too
	am, bm := NewMap[a](w), NewMap[b](w)
	ids := []ComponentID{ComponentIDOf[a](w), ComponentIDOf[b](w)}
	cid, did := ComponentIDOf[c](w), ComponentIDOf[d](w)
	must(t, w.SpawnBatchIDs(20_000, append(slices.Clone(ids), cid), nil)) // the destination, made big
	if n := w.DespawnWhere(Filter{With: []ComponentID{cid}}); n != 20_000 {
		t.Fatalf("despawned %d", n)
	}
	var ents []Entity
	must(t, w.SpawnBatchIDs(5_000, append(slices.Clone(ids), did), func(first int, es []Entity) {
		for i, e := range es {
			*am.At(e), *bm.At(e) = a{int64(first + i)}, b{[3]float64{float64(first + i)}}
			ents = append(ents, e)
		}
	}))
	src := w.tables[w.records[ents[0].index].table]
	m := src.mask
	m.Set(cid)
	m.Clear(did)
	dst := w.tables[w.tableFor(m)]
	if dst.len() != 0 || cap(dst.entities) <= cap(src.entities) {
		t.Fatalf("the destination holds %d rows with room for %d, the source room for %d: not the case under test", dst.len(), cap(dst.entities), cap(src.entities))
	}
	srcA := unsafe.SliceData(src.cols[src.column(ids[0])].(*typedColumn[a]).data)
	n, err := w.ExchangeWhere(Filter{With: []ComponentID{did}}, []ComponentID{cid}, []ComponentID{did})
	must(t, err)
	if n != 5_000 || dst.len() != 5_000 || src.len() != 0 {
		t.Fatalf("exchanged %d: the destination holds %d, the source %d", n, dst.len(), src.len())
	}
	if unsafe.SliceData(dst.cols[dst.column(ids[0])].(*typedColumn[a]).data) != srcA {
		t.Fatal("the rows were copied, not handed over")
	}
	roomTogether := func() {
		t.Helper()
		for _, tb := range w.tables {
			for i, col := range tb.cols {
				if r := col.raw(); r.hdr.cap < cap(tb.entities) || cap(col.ticks().rows) < cap(tb.entities) {
					t.Fatalf("table %v column %d has room for %d values and %d stamps, its entity list for %d", tb.ids, i, r.hdr.cap, cap(col.ticks().rows), cap(tb.entities))
				}
			}
		}
	}
	roomTogether()
	// Into a table never used, from a list with more room than rows: the
	// new table's own column gets room for the whole list.
	for _, e := range ents[4_000:] {
		must(t, w.Despawn(e))
	}
	ents = ents[:4_000]
	type e struct{ V int16 }
	if n, err := NewMap[e](w).AddWhere(Filter{With: []ComponentID{cid}}, e{7}); err != nil || n != 4_000 {
		t.Fatalf("added to %d: %v", n, err)
	}
	roomTogether()
	for i, e := range ents {
		if p, q := am.Read(e), bm.Read(e); p == nil || q == nil || p.V != int64(i) || q.V[0] != float64(i) || !w.Has(e, cid) || w.Has(e, did) {
			t.Fatalf("entity %d (%v) after the move: %+v %+v", i, e, p, q)
		}
	}
}
