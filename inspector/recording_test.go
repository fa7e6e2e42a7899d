package inspector

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// TestRecordingIsTheGamesMemory runs the demo's world with a recorder on
// every frame and, at random ticks, takes the agent's own full snapshot
// (the SnapshotRequest path, which converts the live Go values): the state
// rebuilt from the file at that tick must hold the same entities, with the
// same generations, components, values, parents and resources.
func TestRecordingIsTheGamesMemory(t *testing.T) {
	sim := ecosystem.New(1500, 7)
	agent := New(sim.World, Options{Addr: "127.0.0.1:0", Game: "ecosystem", Schedule: sim.Schedule})
	path := filepath.Join(t.TempDir(), "run.ecsrec")
	rec, err := agent.Record(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	frames := 300
	if testing.Short() {
		frames = 120
	}
	rng := rand.New(rand.NewPCG(1, 2))
	truth := map[uint64]*protocol.Snapshot{}
	for f := range frames {
		sim.Step()
		rec.keepUp()
		agent.Sync()
		if f == 0 || f == frames-1 || rng.IntN(25) == 0 {
			s := live.BuildSnapshot(agent.lw.CopyAll(), sim.World.Frame(), "", sim.World.Inspect().Stats(), agent.componentSchemas())
			sum := agent.summaryOf(values.Whole)
			s.Resources = sum.Resources
			truth[s.Tick] = s
		}
	}
	file := stopAndOpen(t, rec, path)
	if len(file.Frames)+rec.Skipped() != frames+1 { // the first at Record, then one per Sync
		t.Fatalf("recorded %d frames and skipped %d, of %d", len(file.Frames), rec.Skipped(), frames+1)
	}
	keys := 0
	for _, f := range file.Frames {
		if f.Keyframe {
			keys++
		}
	}
	if keys < 2 {
		t.Errorf("%d keyframes in %d frames: the interval never closed", keys, frames)
	}
	replay := recording.NewReplay(file)
	checked := 0
	// Out of order on purpose: backwards seeks start from a keyframe.
	ticks := make([]uint64, 0, len(truth))
	for tick := range truth {
		ticks = append(ticks, tick)
	}
	rng.Shuffle(len(ticks), func(i, j int) { ticks[i], ticks[j] = ticks[j], ticks[i] })
	for _, tick := range ticks {
		st, _, err := replay.AtTick(tick)
		if err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		if st.Tick != tick { // the recorder was behind and skipped this tick
			continue
		}
		compareWithSnapshot(t, st, truth[tick])
		checked++
	}
	if checked != len(truth) || rec.Skipped() != 0 {
		t.Fatalf("only %d of %d ticks were recorded (%d skipped)", checked, len(truth), rec.Skipped())
	}
	t.Logf("%d frames, %d keyframes, %d ticks checked, %d bytes", frames, keys, checked, file.Frames[len(file.Frames)-1].Offset)
}

// compareWithSnapshot checks a rebuilt state against a live snapshot.
func compareWithSnapshot(t *testing.T, st *recording.WorldState, snap *protocol.Snapshot) {
	t.Helper()
	names := map[uint16]string{}
	for _, c := range snap.Components {
		names[c.ID] = c.Short
	}
	want := map[protocol.EntityID]map[string]protocol.Value{}
	for _, tb := range append(append([]protocol.Table(nil), snap.Tables...), snap.Sparse...) {
		for row, e := range tb.Entities {
			if want[e] == nil {
				want[e] = map[string]protocol.Value{}
			}
			for c, col := range tb.Columns {
				want[e][names[tb.Components[c]]] = col[row]
			}
		}
	}
	if st.Entities() != len(want) || snap.Stats.Alive != len(want) {
		for _, tb := range st.Tables {
			for _, e := range tb.Entities {
				if _, ok := want[e]; !ok && !tb.Sparse {
					t.Logf("extra %v in archetype %d (%d rows) %v", e, tb.Archetype, len(tb.Entities), tb.Components)
				}
			}
		}
		t.Fatalf("tick %d: %d entities rebuilt, %d live", snap.Tick, st.Entities(), len(want))
	}
	for e, comps := range want {
		d := st.Detail(e)
		if !d.Alive {
			t.Fatalf("tick %d: %v alive in the game, not in the recording: %s", snap.Tick, e, d.Reason)
		}
		got := map[string]protocol.Value{}
		for _, cv := range d.Components {
			got[cv.Component] = cv.Value
		}
		if len(got) != len(comps) {
			t.Fatalf("tick %d: %v has %d components rebuilt, %d live", snap.Tick, e, len(got), len(comps))
		}
		for name, v := range comps {
			if !got[name].Equal(v) {
				t.Fatalf("tick %d: %v %s = %v rebuilt, %v live", snap.Tick, e, name, got[name], v)
			}
		}
		if p, ok := comps["ChildOf"]; ok {
			pv, _ := p.Get("Parent")
			if d.Parent != protocol.EntityID(pv.Uint()) {
				t.Fatalf("tick %d: %v parent %v rebuilt, %v live", snap.Tick, e, d.Parent, pv)
			}
		}
	}
	res := map[string]string{}
	for _, r := range st.Summary.Resources {
		res[r.Name] = r.Value.String()
	}
	for _, r := range snap.Resources {
		if res[r.Name] != r.Value.String() {
			t.Fatalf("tick %d: resource %s differs: %s", snap.Tick, r.Name, fmt.Sprint(len(res[r.Name])))
		}
	}
}

// Components of the churn test: a few rows written per frame, spawns and
// despawns, components added and removed, sparse toggles, parents, and a
// component with a string (sent as values, not memory).
type (
	churnPos  struct{ X, Y float64 }
	churnHP   struct{ HP int16 }
	churnName struct{ Name string }
	churnMark struct{ N uint8 }
)

func (churnMark) Storage() ecs.StorageKind { return ecs.SparseStorage }

// TestRecordingOfChurn records a world where few rows change per frame (so
// frames carry changed rows, not whole columns) and entities come, go,
// move between archetypes and change parents; every recorded tick must
// rebuild to the live snapshot.
func TestRecordingOfChurn(t *testing.T) {
	w := ecs.NewWorld()
	pos, hp, name, mark := ecs.NewMap[churnPos](w), ecs.NewMap[churnHP](w), ecs.NewMap[churnName](w), ecs.NewMap[churnMark](w)
	rng := rand.New(rand.NewPCG(3, 4))
	var ents []ecs.Entity
	spawn := func() {
		e := w.Spawn()
		must(t, pos.Add(e, churnPos{rng.Float64(), rng.Float64()}))
		if rng.IntN(2) == 0 {
			must(t, hp.Add(e, churnHP{int16(rng.IntN(100))}))
		}
		ents = append(ents, e)
	}
	for range 2000 {
		spawn()
	}
	agent := New(w, Options{Addr: "127.0.0.1:0"})
	path := filepath.Join(t.TempDir(), "churn.ecsrec")
	rec, err := agent.Record(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[uint64]*protocol.Snapshot{}
	for f := range 200 {
		for range 20 { // a few values written
			e := ents[rng.IntN(len(ents))]
			if p := pos.Get(e); p != nil {
				p.X += 1
			}
		}
		for range 3 { // churn
			i := rng.IntN(len(ents))
			switch rng.IntN(6) {
			case 0:
				must(t, w.Despawn(ents[i]))
				ents = append(ents[:i], ents[i+1:]...)
			case 1:
				spawn()
			case 2:
				if hp.Has(ents[i]) {
					must(t, hp.Remove(ents[i]))
				} else {
					must(t, hp.Add(ents[i], churnHP{7}))
				}
			case 3:
				if mark.Has(ents[i]) {
					must(t, mark.Remove(ents[i]))
				} else {
					must(t, mark.Add(ents[i], churnMark{uint8(f)}))
				}
			case 4:
				if j := rng.IntN(len(ents)); j != i {
					_ = w.SetParent(ents[i], ents[j]) // a cycle is refused: fine
				}
			case 5:
				if name.Has(ents[i]) {
					name.Get(ents[i]).Name += "!"
				} else {
					must(t, name.Add(ents[i], churnName{fmt.Sprint("e", f)}))
				}
			}
		}
		must(t, w.Tick())
		rec.keepUp()
		agent.Sync()
		if rng.IntN(10) == 0 || f == 199 {
			truth[w.Frame()] = live.BuildSnapshot(agent.lw.CopyAll(), w.Frame(), "", w.Inspect().Stats(), agent.componentSchemas())
		}
	}
	file := stopAndOpen(t, rec, path)
	replay := recording.NewReplay(file)
	checked := 0
	for tick, snap := range truth {
		st, _, err := replay.AtTick(tick)
		if err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
		if st.Tick != tick { // the recorder was behind and skipped this tick
			continue
		}
		compareWithSnapshot(t, st, snap)
		checked++
	}
	if checked != len(truth) || rec.Skipped() != 0 {
		t.Fatalf("only %d of %d ticks were recorded (%d skipped)", checked, len(truth), rec.Skipped())
	}
}

// must fails the test on an error from the code under test.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// keepUp waits until the recorder has room for a frame: these tests check
// what is recorded, not what a slow disk makes the recorder skip.
func (r *Recorder) keepUp() {
	for jobs, room := r.r.Queued(); jobs >= room-1; jobs, room = r.r.Queued() {
		time.Sleep(time.Millisecond)
	}
}

// TestRecordingKeepsTheDead: an entity that lives and dies between two
// recorded frames is in the file all the same: opened at a later tick, it
// is dead with its last state and who despawned it, even by a reader that
// starts at a keyframe after its death.
func TestRecordingKeepsTheDead(t *testing.T) {
	w := ecs.NewWorld()
	hp := ecs.NewMap[churnHP](w)
	agent := New(w, Options{Addr: "127.0.0.1:0"})
	path := filepath.Join(t.TempDir(), "dead.ecsrec")
	rec, err := agent.Record(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var brief ecs.Entity
	for f := range 10 {
		if f == 5 { // born and gone inside one frame: no frame holds it alive
			brief = w.Spawn()
			must(t, hp.Add(brief, churnHP{HP: -3}))
			must(t, w.Despawn(brief))
		}
		if f == 7 { // a reader of tick 9 starts at a keyframe after the death
			rec.r.Keyframe()
		}
		must(t, w.Tick())
		rec.keepUp()
		agent.Sync()
	}
	file := stopAndOpen(t, rec, path)
	st, _, err := recording.NewReplay(file).AtTick(9)
	if err != nil {
		t.Fatal(err)
	}
	d := st.Detail(wire(brief))
	if d.Alive || d.Died == nil || d.Died.Tick != 6 || d.Died.By != "external" || len(d.Components) != 1 {
		t.Fatalf("the brief entity at tick 9: %+v", d)
	}
	if v, _ := d.Components[0].Value.Get("HP"); v.Int() != -3 {
		t.Fatalf("its last HP: %v, want -3", d.Components[0].Value)
	}
	st, _, err = recording.NewReplay(file).AtTick(3)
	if err != nil {
		t.Fatal(err)
	}
	if d := st.Detail(wire(brief)); d.Died != nil {
		t.Fatalf("at tick 3, before it died, it has a death: %+v", d)
	}
}

// TestRecordingAnswersQuestions: one pass over a file says when a query
// first and last holds (for the living, and for the last state of one
// despawned in the frame that made it true), and one entity's whole
// history: each value it took, and who despawned it, with its last state.
func TestRecordingAnswersQuestions(t *testing.T) {
	w := ecs.NewWorld()
	hp := ecs.NewMap[churnHP](w)
	agent := New(w, Options{Addr: "127.0.0.1:0"})
	steady, doomed := w.Spawn(), w.Spawn()
	must(t, hp.Add(steady, churnHP{HP: 50}))
	must(t, hp.Add(doomed, churnHP{HP: 10}))
	path := filepath.Join(t.TempDir(), "questions.ecsrec")
	rec, err := agent.Record(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for f := 1; f <= 12; f++ {
		switch f {
		case 3, 4, 5, 8: // steady is low at ticks 3-5 and 8
			hp.Get(steady).HP = 1
		default:
			hp.Get(steady).HP = 50
		}
		if f <= 6 {
			hp.Get(doomed).HP--
		}
		if f == 7 { // written below zero and despawned in one frame
			hp.Get(doomed).HP = -5
			must(t, w.Despawn(doomed))
		}
		must(t, w.Tick())
		rec.keepUp()
		agent.Sync()
	}
	file := stopAndOpen(t, rec, path)
	low, err := recording.NewReplay(file).ScanQuery("churnHP.HP<3")
	if err != nil {
		t.Fatal(err)
	}
	if !low.Held || low.First != 3 || low.Last != 8 || low.Frames != 5 || len(low.FirstMatches) != 1 || low.FirstMatches[0] != wire(steady) || len(low.FirstDead) != 0 {
		t.Errorf("HP<3 over the file: %+v; want first 3 (steady), last 8, in 5 frames (3-5 and 8 steady, 7 the doomed one's last state)", low)
	}
	neg, err := recording.NewReplay(file).ScanQuery("churnHP.HP<0")
	if err != nil {
		t.Fatal(err)
	}
	if !neg.Held || neg.First != 7 || neg.Last != 7 || len(neg.FirstDead) != 1 || neg.FirstDead[0] != wire(doomed) {
		t.Errorf("HP<0 over the file: %+v; want tick 7, by the doomed entity's last state", neg)
	}
	hist, err := recording.NewReplay(file).History(wire(doomed))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range hist {
		lines = append(lines, c.String())
	}
	want := []string{
		"tick 0 alive", "tick 0 churnHP has {HP:10}", "tick 1 churnHP changed: HP 10 -> 9",
		"tick 2 churnHP changed: HP 9 -> 8", "tick 3 churnHP changed: HP 8 -> 7", "tick 4 churnHP changed: HP 7 -> 6",
		"tick 5 churnHP changed: HP 6 -> 5", "tick 6 churnHP changed: HP 5 -> 4",
		"tick 7 churnHP changed: HP 4 -> -5", "tick 7 despawned by external",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("the doomed entity's history:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
