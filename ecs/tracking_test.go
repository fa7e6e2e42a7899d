package ecs

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

type (
	stA   struct{ V int32 }
	stB   struct{ V, W float64 }
	stC   struct{ V [3]int64 }
	stTag struct{}
)

// stampWorld is one world of the stamps-on-demand twins: the same
// operations go to a world keeping every component's stamps from birth
// and to one keeping them only once something read them.
type stampWorld struct {
	w       *World
	a       *Map[stA]
	b       *Map[stB]
	c       *Map[stC]
	tag     *Map[stTag]
	queries []*Query1[stA]
	capt    *Capturer
}

func newStampWorld(always bool) *stampWorld {
	w := NewWorld()
	if always {
		w.Inspect().TrackChanges()
	}
	return &stampWorld{w: w, a: NewMap[stA](w), b: NewMap[stB](w), c: NewMap[stC](w), tag: NewMap[stTag](w)}
}

// stampComps names the components the twins write: 0 A, 1 B, 2 C.
var stampComps = []string{"A", "B", "C"}

func (s *stampWorld) id(k int) ComponentID {
	return [...]ComponentID{s.a.ID(), s.b.ID(), s.c.ID()}[k]
}

func (s *stampWorld) has(e Entity, k int) bool { return s.w.Has(e, s.id(k)) }

func (s *stampWorld) add(e Entity, k, v int) error {
	switch k {
	case 0:
		return s.a.Add(e, stA{int32(v)})
	case 1:
		return s.b.Add(e, stB{float64(v), 1})
	default:
		return s.c.Add(e, stC{[3]int64{int64(v)}})
	}
}

func (s *stampWorld) remove(e Entity, k int) error {
	switch k {
	case 0:
		return s.a.Remove(e)
	case 1:
		return s.b.Remove(e)
	default:
		return s.c.Remove(e)
	}
}

// write writes e's k through Map.Get.
func (s *stampWorld) write(e Entity, k, v int) {
	switch k {
	case 0:
		s.a.Get(e).V = int32(v)
	case 1:
		s.b.Get(e).V = float64(v)
	default:
		s.c.Get(e).V[0] = int64(v)
	}
}

// writeAll writes k of every entity holding it through a Mut query.
func (s *stampWorld) writeAll(k, v int) {
	switch k {
	case 0:
		for p := range NewQuery1[stA](s.w, Mut[stA]()).All() {
			p.V = int32(v)
		}
	case 1:
		for p := range NewQuery1[stB](s.w, Mut[stB]()).All() {
			p.W = float64(v)
		}
	default:
		for p := range NewQuery1[stC](s.w, Mut[stC]()).All() {
			p.V[1] = int64(v)
		}
	}
}

// newQuery adds a query over A passing what changed (or was added) in k.
func (s *stampWorld) newQuery(k int, added bool) {
	var term Term
	switch {
	case k == 0 && added:
		term = Added[stA]()
	case k == 0:
		term = Changed[stA]()
	case k == 1 && added:
		term = Added[stB]()
	case k == 1:
		term = Changed[stB]()
	case added:
		term = Added[stC]()
	default:
		term = Changed[stC]()
	}
	s.queries = append(s.queries, NewQuery1[stA](s.w, term))
}

// runQueries runs every query once, listing what each passes.
func (s *stampWorld) runQueries() [][]Entity {
	out := make([][]Entity, len(s.queries))
	for i, q := range s.queries {
		for it := q.Iter(); it.Next(); {
			out[i] = append(out[i], it.Entity())
		}
	}
	return out
}

// capture takes a capture (the first one makes the capturer) and says
// which rows of which columns it lists as changed and added.
func (s *stampWorld) capture() string {
	if s.capt == nil {
		s.capt = s.w.Inspect().NewCapturer()
	}
	var b []byte
	for _, t := range s.capt.Capture(false).Tables {
		for _, c := range t.Columns {
			b = fmt.Appendf(b, "%d/%d changed %v added %v\n", t.Archetype, c.Component, c.Changed, c.Added)
		}
	}
	return string(b)
}

// TestStampsOnDemandAnswerAsAlways: the same history played on a world
// keeping every stamp from birth and on one keeping a component's stamps
// only from the first time something read them: every Changed and Added
// query passes the same entities, every capture lists the same changed
// and added rows, and every "who wrote it" names the same writer for each
// write made since the component's stamps began (and, for one made
// before, says it does not know rather than name anyone).
func TestStampsOnDemandAnswerAsAlways(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		always, onDemand := newStampWorld(true), newStampWorld(false)
		twins := []*stampWorld{always, onDemand}
		var ents []Entity
		type slot struct {
			e Entity
			k int
		}
		// fresh holds the writes (adds included) made while the
		// on-demand world kept the component's stamps; freshAdd the adds.
		fresh, freshAdd := map[slot]bool{}, map[slot]bool{}
		kept := func(k int) bool { return onDemand.w.stamps.kept(onDemand.id(k)) }
		wrote := func(e Entity, k int, add bool) {
			fresh[slot{e, k}] = kept(k)
			if add {
				freshAdd[slot{e, k}] = kept(k)
			}
		}
		actors := []string{"p", "q", ""} // "": outside any run
		as := func(s *stampWorld, actor string, f func()) {
			if actor == "" {
				f()
				return
			}
			s.w.Inspect().ActAs(actor, f)
		}
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for range steps {
			k := rapid.IntRange(0, 2).Draw(rt, "component")
			v := rapid.IntRange(0, 9).Draw(rt, "value")
			actor := rapid.SampledFrom(actors).Draw(rt, "actor")
			pick := func() (Entity, bool) {
				if len(ents) == 0 {
					return Entity{}, false
				}
				return ents[rapid.IntRange(0, len(ents)-1).Draw(rt, "entity")], true
			}
			switch op := rapid.IntRange(0, 10).Draw(rt, "op"); op {
			case 0, 1: // spawn with k, maybe the tag too
				tagged := rapid.Bool().Draw(rt, "tagged")
				var e Entity
				for _, s := range twins {
					as(s, actor, func() {
						e = s.w.Spawn()
						mustDo(rt, s.add(e, k, v))
						if tagged {
							mustDo(rt, s.tag.Add(e, stTag{}))
						}
					})
				}
				ents = append(ents, e)
				wrote(e, k, true)
			case 2: // add or remove k
				e, ok := pick()
				if !ok {
					continue
				}
				has := always.has(e, k)
				for _, s := range twins {
					as(s, actor, func() {
						if has {
							mustDo(rt, s.remove(e, k))
						} else {
							mustDo(rt, s.add(e, k, v))
						}
					})
				}
				if !has {
					wrote(e, k, true)
				}
			case 3: // despawn
				e, ok := pick()
				if !ok {
					continue
				}
				for _, s := range twins {
					mustDo(rt, s.w.Despawn(e))
				}
				ents = slices.DeleteFunc(ents, func(x Entity) bool { return x == e })
			case 4, 5: // write one value
				e, ok := pick()
				if !ok || !always.has(e, k) {
					continue
				}
				for _, s := range twins {
					as(s, actor, func() { s.write(e, k, v) })
				}
				wrote(e, k, false)
			case 6: // write every value of k
				for _, s := range twins {
					as(s, actor, func() { s.writeAll(k, v) })
				}
				for _, e := range ents {
					if always.has(e, k) {
						wrote(e, k, false)
					}
				}
			case 7: // a new Changed or Added query
				added := rapid.Bool().Draw(rt, "added")
				for _, s := range twins {
					s.newQuery(k, added)
				}
			case 8: // run the queries, end the frame
				if a, d := always.runQueries(), onDemand.runQueries(); !slices.EqualFunc(a, d, slices.Equal) {
					rt.Fatalf("the queries pass\n%v with every stamp kept,\n%v with stamps on demand", a, d)
				}
				for _, s := range twins {
					mustDo(rt, s.w.Tick())
				}
			case 9: // who wrote and who added
				e, ok := pick()
				if !ok || !always.has(e, k) {
					continue
				}
				wa, aa, _ := always.w.Inspect().LastWrite(e, always.id(k))
				wd, ad, ok := onDemand.w.Inspect().LastWrite(e, onDemand.id(k))
				if !ok {
					rt.Fatalf("no provenance for %v's %s with stamps on demand", e, stampComps[k])
				}
				if fresh[slot{e, k}] && wd != wa || !fresh[slot{e, k}] && wd.Known {
					rt.Fatalf("%v's %s written by %+v with stamps on demand, %+v always (written since the stamps began: %v)", e, stampComps[k], wd, wa, fresh[slot{e, k}])
				}
				if freshAdd[slot{e, k}] && ad != aa || !freshAdd[slot{e, k}] && ad.Known {
					rt.Fatalf("%v's %s added by %+v with stamps on demand, %+v always (added since the stamps began: %v)", e, stampComps[k], ad, aa, freshAdd[slot{e, k}])
				}
			case 10: // a capture (the first starts every stamp)
				if a, d := always.capture(), onDemand.capture(); a != d {
					rt.Fatalf("the captures list\n%s with every stamp kept,\n%s with stamps on demand", a, d)
				}
			}
		}
		if a, d := always.runQueries(), onDemand.runQueries(); !slices.EqualFunc(a, d, slices.Equal) {
			rt.Fatalf("the queries pass\n%v with every stamp kept,\n%v with stamps on demand", a, d)
		}
	})
}

// TestStampsCostNothingUntilRead: a world whose components nothing read
// keeps no stamp memory; the first Changed query on one gives its columns
// stamps, and only its.
func TestStampsCostNothingUntilRead(t *testing.T) {
	if debugChecks {
		t.Skip("a debug build keeps every component's stamps")
	}
	s := newStampWorld(false)
	for i := range 1000 {
		e := s.w.Spawn()
		must(t, s.add(e, 0, i))
		must(t, s.add(e, 1, i))
	}
	stamped := func() (n int) {
		for _, tb := range s.w.tables {
			for _, tk := range tb.ticks {
				n += cap(tk.rows)
			}
		}
		return n
	}
	if n := stamped(); n != 0 {
		t.Fatalf("%d rows of stamps before anything read them", n)
	}
	s.newQuery(1, false)
	for _, tb := range s.w.tables {
		for j, id := range tb.ids {
			if on := tb.ticks[j].on; on != (id == s.b.ID()) || on && len(tb.ticks[j].rows) != tb.len() {
				t.Fatalf("table %v column %d keeps stamps: %v (%d rows of %d), want only B's", tb.ids, id, on, len(tb.ticks[j].rows), tb.len())
			}
		}
	}
}

// TestStampsStartInAParallelStage: systems of one parallel stage each
// start the stamps of the component they declare (a lookup of who wrote
// it, whether it changed) while another writes its own component:
// under the race detector nothing races, and from the next frame each
// sees exactly what was written. (Queries are built at setup: building
// one from a system of a parallel stage was never safe.)
func TestStampsStartInAParallelStage(t *testing.T) {
	if debugChecks {
		t.Skip("a debug build keeps every component's stamps and runs systems one at a time")
	}
	s, ents := populatedStampWorld(t, 200, 0, 1, 2)
	writeC := NewQuery1[stC](s.w, Mut[stC]())
	var lastA Provenance
	var changedB bool
	sched := NewSchedule()
	sched.Parallel = true
	sched.Add("reads-a", func(w *World, _ *Commands) {
		lastA, _, _ = w.Inspect().LastWrite(ents[3], s.a.ID())
	}, Reads[stA]())
	sched.Add("reads-b", func(w *World, _ *Commands) {
		changedB = w.Inspect().ChangedSince(ents[4], s.b.ID(), 0)
	}, Reads[stB]())
	sched.Add("writes-c", func(w *World, _ *Commands) {
		for p := range writeC.All() {
			p.V[0]++
		}
	}, Writes[stC]())
	sched.Run(s.w)
	must(t, s.w.Tick())
	if lastA.Known || !changedB {
		t.Fatalf("A, set up before its stamps began, written by %+v; B changed since 0: %v", lastA, changedB)
	}
	for k, name := range stampComps[:2] {
		if !s.w.stamps.kept(s.id(k)) {
			t.Fatalf("%s keeps no stamps after a system asked", name)
		}
	}
	s.w.Inspect().ActAs("healer", func() { s.a.Get(ents[3]).V = 9 })
	sched.Run(s.w)
	must(t, s.w.Tick())
	if lastA.By != "healer" {
		t.Fatalf("A written by %+v after the stamps began, want healer", lastA)
	}
}

// TestAnOlderSinceSeesEveryRowOnce: a hook asking what a system wrote, by
// the run's Since, of a component nothing read the stamps of before, is
// told every row (more, never less: the stamps began after that Since);
// from the next run on, exactly the rows written.
func TestAnOlderSinceSeesEveryRowOnce(t *testing.T) {
	if debugChecks {
		t.Skip("a debug build keeps every component's stamps")
	}
	s, ents := populatedStampWorld(t, 100, 1)
	sched := NewSchedule()
	sched.Add("hurt", func(w *World, _ *Commands) { s.b.Get(ents[7]).V-- }, Writes[stB]())
	var seen []int
	sched.SystemEnd = func(w *World, run SystemRun) {
		n := 0
		w.Inspect().EachChanged(s.b.ID(), run.Since, 0, func(Entity, []byte) bool { n++; return true })
		seen = append(seen, n)
	}
	for range 3 {
		sched.Run(s.w)
		must(t, s.w.Tick())
	}
	if !slices.Equal(seen, []int{100, 1, 1}) {
		t.Fatalf("the rows changed in each run: %v, want every row the first time (the stamps began then), then the one written", seen)
	}
}

// populatedStampWorld is a world keeping stamps on demand with n entities,
// each holding the components ks (stampComps' indexes), valued by entity.
func populatedStampWorld(t *testing.T, n int, ks ...int) (*stampWorld, []Entity) {
	t.Helper()
	s := newStampWorld(false)
	var ents []Entity
	for i := range n {
		e := s.w.Spawn()
		for _, k := range ks {
			must(t, s.add(e, k, i))
		}
		ents = append(ents, e)
	}
	return s, ents
}
