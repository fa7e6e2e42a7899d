package inspector

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestRewindRestoresWhoWroteEveryEntity: after a rewind to a tick, every
// entity's components, followed or not, say who wrote and who added them
// exactly as they said at that tick before the rewind, and that they were
// restored.
func TestRewindRestoresWhoWroteEveryEntity(t *testing.T) {
	g := startDemo(t, 2000, 0, Options{RewindHz: 1000})
	c := dial(t, &game{agent: g.agent}, protocol.Hello{Client: "ui"})
	for g.frames.Load() < 90 {
		time.Sleep(10 * time.Millisecond)
	}
	// Pause on a tick the ring recorded (its encoder may skip one under
	// load, the race detector's: then run on and pause again).
	var at uint64
	for try := 0; ; try++ {
		wantOK(t, "pause", c.reply(&protocol.Pause{}))
		at = c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }).Tick
		deadline := time.Now().Add(2 * time.Second)
		for g.agent.ringMem.Describe().To < at && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if recorded(g.agent.ringMem, at) {
			break
		}
		if try == 20 {
			t.Fatalf("the ring recorded none of 20 paused ticks")
		}
		wantOK(t, "resume", c.reply(&protocol.Resume{}))
		time.Sleep(20 * time.Millisecond)
	}
	id := c.request(&protocol.Query{Expr: "Energy", Limit: 60, Offset: 40})
	page := c.await(func(m protocol.Message) bool { p, ok := m.(*protocol.Page); return ok && p.Sub == id }).(*protocol.Page)
	if len(page.Rows) < 30 {
		t.Fatalf("want many entities with Energy: %d", len(page.Rows))
	}
	who := func(e protocol.EntityID) (map[string]string, *protocol.Detail) {
		id := c.request(&protocol.GetEntity{Entity: e})
		d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
		out := map[string]string{}
		for _, cv := range d.Components {
			out[cv.Component] = fmt.Sprintf("written %s, added %s", provText(cv.Written), provText(cv.Added))
		}
		return out, d
	}
	before := map[protocol.EntityID]map[string]string{}
	bySystem := 0
	for _, r := range page.Rows {
		w, _ := who(r.Entity)
		before[r.Entity] = w
		if !contains(w["Energy"], "written unknown") {
			bySystem++
		}
	}
	if bySystem == 0 {
		t.Fatalf("no Energy written by a system at tick %d: %v", at, before)
	}
	wantOK(t, "step", c.reply(&protocol.Step{N: 12}))
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick >= at+12 })
	wantOK(t, "rewind", c.reply(&protocol.Rewind{Tick: at}))
	if back := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick <= at }).Tick; back != at {
		t.Fatalf("rewound to %d, want the paused tick %d (recorded)", back, at)
	}
	checked := 0
	for e, want := range before {
		got, d := who(e)
		if !d.Alive {
			t.Fatalf("%v is not alive after the rewind to a tick it lived at", e)
		}
		for comp, w := range want {
			if got[comp] != w {
				t.Errorf("%v %s after the rewind: %s; at tick %d it was %s", e, comp, got[comp], at, w)
			}
			checked++
		}
		for _, cv := range d.Components {
			if cv.Restored == nil || cv.Restored.Tick != at {
				t.Errorf("%v %s: restored %+v, want tick %d", e, cv.Component, cv.Restored, at)
			}
		}
	}
	t.Logf("%d components of %d entities kept who wrote them (%d Energy by a system)", checked, len(before), bySystem)

	// A frame on: what a system wrote names it, the rest stays restored;
	// who added a component stays who added it, not the rewind.
	wantOK(t, "step", c.reply(&protocol.Step{N: 1}))
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == at+1 })
	addedBy := func(w string) string { return w[strings.Index(w, ", added"):] }
	for e, want := range before {
		got, d := who(e)
		if !d.Alive {
			continue // died in the frame
		}
		for _, cv := range d.Components {
			if addedBy(got[cv.Component]) != addedBy(want[cv.Component]) {
				t.Errorf("%v %s a frame after the rewind: %s; restored, it was %s", e, cv.Component, got[cv.Component], want[cv.Component])
			}
			if cv.Restored == nil && (cv.Written == nil || cv.Written.Tick != at+1) {
				t.Errorf("%v %s a frame after the rewind: not restored, written %s", e, cv.Component, provText(cv.Written))
			}
		}
	}
	// A second rewind: every component names its writers as at the tick,
	// whether the first rewind's restore wrote it or a system since.
	wantOK(t, "rewind", c.reply(&protocol.Rewind{Tick: at}))
	c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick == at })
	for e, want := range before {
		got, _ := who(e)
		for comp, w := range want {
			if got[comp] != w {
				t.Errorf("%v %s after a second rewind: %s; at tick %d it was %s", e, comp, got[comp], at, w)
			}
		}
	}
}

// recorded reports whether the ring holds a frame of tick.
func recorded(r *record.Ring, tick uint64) bool {
	span, err := r.Span(tick)
	return err == nil && span[len(span)-1].Tick() == tick
}

func provText(p *protocol.Provenance) string {
	if p == nil {
		return "unknown"
	}
	return fmt.Sprintf("at %d by %s", p.Tick, p.By)
}

// TestRewindMarksFollowDeltas: in a world where each frame writes a few
// rows (the ring's frames are deltas listing them, not whole columns),
// the marks a rebuild keeps for every row name the writer LastWrite named
// at the tick rebuilt.
func TestRewindMarksFollowDeltas(t *testing.T) {
	w := ecs.NewWorld()
	spawn := ecs.NewMap2[Position, Health](w)
	var ents []ecs.Entity
	for i := range 300 {
		ents = append(ents, spawn.Spawn(Position{X: float64(i)}, Health{HP: i}))
	}
	hp, pos := ecs.NewMap[Health](w), ecs.NewMap[Position](w)
	s := ecs.NewSchedule()
	s.Add("poison", func(w *ecs.World, _ *ecs.Commands) {
		for k := range 3 {
			hp.Get(ents[(int(w.Frame())*7+k*101)%len(ents)]).HP--
		}
	}, ecs.Writes[Health]())
	s.Add("drift", func(w *ecs.World, _ *ecs.Commands) {
		pos.Get(ents[(int(w.Frame())*13)%len(ents)]).X++
	}, ecs.Writes[Position]())
	a := New(w, Options{Addr: "127.0.0.1:0", Schedule: s, RewindHz: 1000})
	must(t, a.Start())
	defer func() { must(t, a.Close()) }()
	type who struct{ written, added ecs.Provenance }
	wants := map[uint64]map[ecs.Entity][2]who{} // by tick: what LastWrite said
	for range 40 {
		s.Run(w)
		must(t, w.Tick())
		a.Sync()
		time.Sleep(2 * time.Millisecond) // the ring records a frame a millisecond at most
		want := map[ecs.Entity][2]who{}
		for _, e := range ents {
			var pair [2]who
			for i, id := range []ecs.ComponentID{pos.ID(), hp.ID()} {
				wr, ad, ok := w.Inspect().LastWrite(e, id)
				if !ok {
					t.Fatalf("%v lacks component %d", e, id)
				}
				pair[i] = who{wr, ad}
			}
			want[e] = pair
		}
		wants[w.Frame()] = want
	}
	// The newest tick the ring holds (its encoder catches up; a frame it
	// skipped under load is in the next one).
	for deadline := time.Now().Add(time.Minute); a.ringMem.Describe().To < 30; {
		if time.Now().After(deadline) {
			t.Fatalf("the ring holds ticks to %d", a.ringMem.Describe().To)
		}
		time.Sleep(time.Millisecond)
	}
	// The newest recorded tick whose frames hold delta tables (a keyframe
	// taken under load may end a span: an older tick's span then serves).
	var at uint64
	var frames []record.Frame
	rr := a.ringMem.Describe()
	for tick := rr.To; tick >= rr.From && at == 0; tick-- {
		span, err := a.ringMem.Span(tick)
		must(t, err)
		if span[len(span)-1].Tick() != tick || wants[tick] == nil {
			continue
		}
		for _, fr := range span[1:] {
			if fr.Partial() {
				at, frames = tick, span
			}
		}
	}
	if at == 0 {
		t.Fatalf("no recorded tick of %d..%d has delta tables in its frames: the test needs some; the ring holds %s", rr.From, rr.To, a.ringMem.Layout())
	}
	want := wants[at]
	rb, err := record.Rebuild(frames, record.TypesOf(a.w))
	must(t, err)
	bySystem := 0
	for e, pair := range want {
		for i, id := range []ecs.ComponentID{pos.ID(), hp.ID()} {
			m := rb.Marks.Find(w, e, id)
			if m == nil {
				t.Fatalf("no marks for %v's component %d", e, id)
			}
			gotW, gotA := w.Inspect().MarkProvenance(id, m[0]), w.Inspect().MarkProvenance(id, m[1])
			if gotW != pair[i].written || gotA != pair[i].added {
				t.Fatalf("%v component %d at tick %d: marks say written %+v added %+v; LastWrite said %+v, %+v", e, id, at, gotW, gotA, pair[i].written, pair[i].added)
			}
			if gotW.By == "poison" || gotW.By == "drift" {
				bySystem++
			}
		}
	}
	if bySystem < 50 {
		t.Fatalf("only %d rows were written by a system: the test needs more", bySystem)
	}
}
