package inspector

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/inspector/internal/watch"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// propF32 is a float32 field: compared with a constant as Go compares it.
type propF32 struct{ V float32 }

// TestEveryPathAnswersAQueryAlike runs random queries on random worlds
// through every path that answers one: the agent's Query request (the
// kernel's window, or the plan on a copy), the copy forced, the world
// rebuilt from a recording of the same tick, a watchpoint's test of each
// live entity, and the kernel's raw bounds against the query's own test
// of each value. Pages, totals and order must be identical.
func TestEveryPathAnswersAQueryAlike(t *testing.T) {
	dir := t.TempDir()
	runs := 0
	rapid.Check(t, func(rt *rapid.T) {
		runs++
		w := ecs.NewWorld()
		pos, hp, mark, name, f32, slots, tag := ecs.NewMap[churnPos](w), ecs.NewMap[churnHP](w), ecs.NewMap[churnMark](w),
			ecs.NewMap[churnName](w), ecs.NewMap[propF32](w), ecs.NewMap[caseSlots](w), ecs.NewMap[caseTag](w)
		n := rapid.IntRange(1, 60).Draw(rt, "entities")
		var ents []ecs.Entity
		pick := func(label string, from ...float64) float64 { return rapid.SampledFrom(from).Draw(rt, label) }
		for i := range n {
			e := w.Spawn()
			ents = append(ents, e)
			if rapid.IntRange(0, 3).Draw(rt, "pos") > 0 {
				must(t, pos.Add(e, churnPos{pick("x", 0, 1, 2, 2.5), pick("y", -1, 0, 3)}))
			}
			if rapid.Bool().Draw(rt, "hp") {
				must(t, hp.Add(e, churnHP{int16(pick("hpv", -3, 0, 1, 3))}))
			}
			if rapid.Bool().Draw(rt, "mark") {
				must(t, mark.Add(e, churnMark{uint8(pick("n", 0, 7, 200))}))
			}
			if rapid.IntRange(0, 3).Draw(rt, "name") == 0 {
				must(t, name.Add(e, churnName{fmt.Sprint("n", i%3)}))
			}
			if rapid.Bool().Draw(rt, "f32") {
				must(t, f32.Add(e, propF32{float32(pick("v", 0.1, 0.5, 1))}))
			}
			if rapid.IntRange(0, 2).Draw(rt, "slots") == 0 {
				must(t, slots.Add(e, caseSlots{[4]int32{int32(i), int32(pick("s", 0, 3)), 0, -1}}))
			}
			if rapid.IntRange(0, 3).Draw(rt, "tag") == 0 {
				must(t, tag.Add(e, caseTag{}))
			}
			if i > 1 && rapid.IntRange(0, 2).Draw(rt, "child") == 0 {
				must(t, w.SetParent(e, ents[i%2]))
			}
		}
		agent := New(w, Options{Addr: "127.0.0.1:0"})
		st := recordOneFrame(t, agent, filepath.Join(dir, fmt.Sprintf("prop%d.ecsrec", runs)), func() {
			for _, e := range ents { // a frame that writes some Positions: changed()
				if p := pos.Get(e); p != nil && rapid.Bool().Draw(rt, "write") {
					p.X += 0.5
				}
			}
		})

		terms := []string{
			"churnPos", "!churnHP", "?churnMark", "churnMark", "!churnMark", "churnName", "caseTag", "!caseTag",
			"churnPos.X<2", "churnPos.X<=2", "churnPos.X>=2.5", "churnPos.Y!=0", "churnPos.X==1",
			"churnHP.HP<=0", "churnHP.HP>1", "churnMark.N>=7", "churnName.Name==\"n1\"", "churnName.Name~\"n\"",
			"propF32.V==0.1", "propF32.V<0.5", "propF32.V>=0.1", "caseSlots.Count[1]==3", "caseSlots.Count[3]<0",
			"childof(" + wire(ents[0]).String() + ")", "changed(churnPos)",
		}
		var expr []string
		for range rapid.IntRange(0, 3).Draw(rt, "terms") {
			expr = append(expr, rapid.SampledFrom(terms).Draw(rt, "term"))
		}
		q := strings.Join(expr, " ")
		sortBy := rapid.SampledFrom([]string{"", "churnPos.X", "-churnHP.HP", "propF32.V", "-caseSlots.Count[1]", "churnName.Name"}).Draw(rt, "sort")
		offset, limit := rapid.IntRange(0, 20).Draw(rt, "offset"), rapid.IntRange(1, 30).Draw(rt, "limit")

		cq, err := agent.lw.Compile(q, sortBy, agent.lastFrameTick)
		if err != nil {
			t.Fatalf("%q by %q: %v", q, sortBy, err)
		}
		f, err := agent.lw.Page(1, cq, offset, limit)
		if err != nil {
			t.Fatal(err)
		}
		asked := f.Message().(*protocol.Page)
		qc, err := agent.lw.CopyQuery(1, cq, offset, limit)
		if err != nil {
			t.Fatal(err)
		}
		copied := qc.Build()
		recorded, err := st.QuerySorted(q, sortBy, 0, offset, limit)
		if err != nil {
			t.Fatal(err)
		}
		want := pageText(asked)
		for path, got := range map[string]string{"the copy": pageText(copied), "the recording": pageText(recorded)} {
			if got != want {
				t.Fatalf("%q by %q [%d,+%d]:\nthe request: %s\n%s: %s", q, sortBy, offset, limit, want, path, got)
			}
		}

		// A watchpoint's test of each live entity holds where the query
		// matches (changed() is not a watchpoint's to ask).
		if !strings.Contains(q, "changed(") {
			all, err := agent.lw.CopyQuery(1, cq, 0, n)
			if err != nil {
				t.Fatal(err)
			}
			var matched, held []protocol.EntityID
			for _, r := range all.Build().Rows {
				matched = append(matched, r.Entity)
			}
			for _, e := range ents {
				if agent.lw.Holds(cq, e) {
					held = append(held, wire(e))
				}
			}
			slices.Sort(matched)
			slices.Sort(held)
			if !slices.Equal(matched, held) {
				t.Fatalf("%q: the query matches %v, a watchpoint's test holds for %v", q, matched, held)
			}
		}

		// The kernel's raw bound (what a value watchpoint tests written
		// rows with) agrees with the query's test of each value.
		pq := cq.Plan.Query()
		for i := range pq.Fields {
			ft := &pq.Fields[i]
			b, ok := watch.KernelBound(ft)
			if !ok {
				continue
			}
			comp := ecs.ComponentID(ft.Component)
			var byKernel, byQuery []protocol.EntityID
			if err := w.Inspect().EachChangedWhere(comp, 0, 0, []ecs.RawBound{b}, func(e ecs.Entity, _ []byte) bool {
				byKernel = append(byKernel, wire(e))
				return true
			}); err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if v, ok := w.Inspect().Value(e, comp); ok && ft.HoldsValue(values.Of(v)) {
					byQuery = append(byQuery, wire(e))
				}
			}
			slices.Sort(byKernel)
			slices.Sort(byQuery)
			if !slices.Equal(byKernel, byQuery) {
				t.Fatalf("%s: the kernel's bound passes %v, the query's test %v", ft.Term, byKernel, byQuery)
			}
		}
	})
}

// pageText is what a page shows: its total, and each row's entity and
// values, in order.
func pageText(p *protocol.Page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "total %d:", p.Total)
	for _, r := range p.Rows {
		fmt.Fprintf(&b, " %s%v", r.Entity, r.Values)
	}
	return b.String()
}
