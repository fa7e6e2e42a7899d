package inspector

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

type (
	caseSlots struct{ Count [4]int32 }
	caseTag   struct{}
)

// TestQueryMeansTheSameLiveAndRecorded runs one table of queries against
// the live world (the agent's compiled filter) and against the same tick
// rebuilt from a recording (the player's and dump's evaluator): the same
// entities, in the same order, or the same error.
func TestQueryMeansTheSameLiveAndRecorded(t *testing.T) {
	w := ecs.NewWorld()
	pos, hp, slots, mark, tag := ecs.NewMap[churnPos](w), ecs.NewMap[churnHP](w), ecs.NewMap[caseSlots](w), ecs.NewMap[churnMark](w), ecs.NewMap[caseTag](w)
	rng := rand.New(rand.NewPCG(5, 6))
	var ents []ecs.Entity
	for i := range 400 {
		e := w.Spawn()
		must(t, pos.Add(e, churnPos{float64(i), rng.Float64() * 10}))
		if i%3 == 0 {
			must(t, hp.Add(e, churnHP{int16(i % 50)}))
		}
		if i%5 == 0 {
			must(t, slots.Add(e, caseSlots{[4]int32{int32(i), int32(i % 7), 0, -1}}))
		}
		if i%7 == 0 {
			must(t, mark.Add(e, churnMark{uint8(i)}))
		}
		if i%11 == 0 {
			must(t, tag.Add(e, caseTag{}))
		}
		ents = append(ents, e)
	}
	for i := 1; i < 40; i++ {
		must(t, w.SetParent(ents[i], ents[0]))
	}
	agent := New(w, Options{Addr: "127.0.0.1:0"})
	// One more frame in which a few Positions are written: changed() offline.
	written := []ecs.Entity{ents[3], ents[77], ents[200]}
	st := recordOneFrame(t, agent, filepath.Join(t.TempDir(), "cases.ecsrec"), func() {
		for _, e := range written {
			pos.Get(e).X += 0.5
		}
	})
	if st.Tick != w.Frame() {
		t.Fatalf("the recording ends at tick %d, the world is at %d", st.Tick, w.Frame())
	}
	cases := []struct{ q, wantErr string }{
		{q: ""},
		{q: "churnPos"},
		{q: "churnPos !churnHP"},
		{q: "churnPos ?churnHP"},
		{q: "churnHP.HP<10"},
		{q: "churnHP.HP>=25 churnPos.Y<5"},
		{q: "caseSlots.Count[1]==3"},
		{q: "caseSlots.Count[3]<0 churnMark"},
		{q: "churnMark.N>100"},
		{q: "!churnMark caseTag"},
		{q: "childof(" + wire(ents[0]).String() + ")"},
		{q: "childof(" + wire(ents[0]).String() + ") churnHP"},
		{q: "ChildOf.Parent==" + strconv.Itoa(int(wire(ents[0])))},
		{q: "Health.HP<10", wantErr: "no component named Health"},
		{q: "churnpos", wantErr: "did you mean churnPos?"},
		{q: "churnPos.Z>1", wantErr: "no field Z"},
		{q: "churnHP.HP==\"x\"", wantErr: "compared with a string"},
		{q: "caseSlots.Count[9]==1", wantErr: "past the end"},
	}
	for _, c := range cases {
		live, liveErr := liveQuery(agent, c.q)
		page, offErr := st.Query(c.q, 0, 0, 100000)
		if c.wantErr != "" {
			if liveErr == nil || offErr == nil || liveErr.Error() != offErr.Error() || !contains(liveErr.Error(), c.wantErr) {
				t.Errorf("%q: live error %v, recorded error %v; want both %q", c.q, liveErr, offErr, c.wantErr)
			}
			continue
		}
		if liveErr != nil || offErr != nil {
			t.Errorf("%q: live error %v, recorded error %v", c.q, liveErr, offErr)
			continue
		}
		var off []protocol.EntityID
		for _, r := range page.Rows {
			off = append(off, r.Entity)
		}
		if !slices.Equal(live, off) || page.Total != len(live) {
			t.Errorf("%q: live %d entities, recorded %d (total %d)", c.q, len(live), len(off), page.Total)
		}
		// The copy's evaluator (query.Plan, as a heavy or sorted query runs
		// live) gives the same rows as the kernel's window, structure included.
		if copied, err := copiedQuery(agent, c.q); err != nil || !slices.Equal(live, copied) {
			t.Errorf("%q: the kernel's window %d entities, the copy's evaluator %d (%v)", c.q, len(live), len(copied), err)
		}
		if len(live) == 0 && c.q != "!churnMark caseTag" {
			t.Errorf("%q matches nothing: the case tests nothing", c.q)
		}
	}
	// Sorted pages: the agent sorts on a copy, the recording's reader on
	// its state; the same order, ties in the world's order.
	for _, c := range []struct{ q, sort string }{{"churnPos", "churnPos.Y"}, {"churnHP", "-churnHP.HP"}, {"caseSlots", "caseSlots.Count[1]"}, {"?churnMark churnPos", "-churnMark.N"}} {
		q, err := agent.lw.Compile(c.q, c.sort, 0)
		if err != nil {
			t.Fatal(err)
		}
		qc, err := agent.lw.CopyQuery(1, q, 0, 100000)
		if err != nil {
			t.Fatal(err)
		}
		live := qc.Build()
		off, err := st.QuerySorted(c.q, c.sort, 0, 0, 100000)
		if err != nil {
			t.Fatal(err)
		}
		if live.Total != off.Total || len(live.Rows) != len(off.Rows) || len(live.Rows) < 2 {
			t.Fatalf("%q sorted by %s: live %d rows, recorded %d", c.q, c.sort, len(live.Rows), len(off.Rows))
		}
		for i := range live.Rows {
			if live.Rows[i].Entity != off.Rows[i].Entity {
				t.Fatalf("%q sorted by %s: row %d is %v live, %v recorded", c.q, c.sort, i, live.Rows[i].Entity, off.Rows[i].Entity)
			}
		}
		key, _ := query.CompileSort(c.sort, st.Components())
		for i := 1; i < len(off.Rows); i++ {
			a, _ := key.Of(off.Rows[i-1].Values[slices.Index(off.Columns, key.Field.Component)])
			b, _ := key.Of(off.Rows[i].Values[slices.Index(off.Columns, key.Field.Component)])
			if key.Less(b, a) && !a.Equal(protocol.Nil()) && !b.Equal(protocol.Nil()) {
				t.Fatalf("%q sorted by %s: row %d (%v) after row %d (%v)", c.q, c.sort, i, b, i-1, a)
			}
		}
	}
	if _, err := agent.lw.Compile("churnPos", "churnPos.Z", 0); err == nil || !strings.Contains(err.Error(), "no field Z") {
		t.Errorf("a sort by a missing field: %v", err)
	}
	page, err := st.Query("changed(churnPos)", 0, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []protocol.EntityID
	for _, r := range page.Rows {
		got = append(got, r.Entity)
	}
	slices.Sort(got)
	var want []protocol.EntityID
	for _, e := range written {
		want = append(want, wire(e))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("changed(churnPos) in the last recorded frame = %v, want the entities written then %v", got, want)
	}
}

// recordOneFrame records the agent's world, runs one frame in which write
// changes it, and returns the world rebuilt from the file at that frame.
func recordOneFrame(t *testing.T, agent *Agent, path string, write func()) *recording.WorldState {
	t.Helper()
	rec, err := agent.Record(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	write()
	must(t, agent.w.Tick())
	agent.Sync()
	file := stopAndOpen(t, rec, path)
	st, err := recording.NewReplay(file).At(len(file.Frames) - 1)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// stopAndOpen stops a recording and opens its file, closed when the test
// ends.
func stopAndOpen(t *testing.T, rec *Recorder, path string) *recording.Recording {
	t.Helper()
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	file, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	return file
}

// liveQuery evaluates a query the way the agent answers a Query request.
// copiedQuery is the query run on a copy of the world by the query
// language's evaluator, as a sorted or heavy query is, whatever it tests.
func copiedQuery(a *Agent, expr string) ([]protocol.EntityID, error) {
	q, err := a.lw.Compile(expr, "", 0)
	if err != nil {
		return nil, err
	}
	qc, err := a.lw.CopyQuery(0, q, 0, 1<<30)
	if err != nil {
		return nil, err
	}
	var out []protocol.EntityID
	for _, r := range qc.Build().Rows {
		out = append(out, r.Entity)
	}
	return out, nil
}

func liveQuery(a *Agent, expr string) ([]protocol.EntityID, error) {
	q, err := a.lw.Compile(expr, "", 0)
	if err != nil {
		return nil, err
	}
	if !q.Evaluates() { // the kernel's window
		ents, _ := a.w.Inspect().Scan(q.Filter, 0, 1<<30)
		out := make([]protocol.EntityID, len(ents))
		for i, e := range ents {
			out[i] = wire(e)
		}
		return out, nil
	}
	return copiedQuery(a, expr)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
