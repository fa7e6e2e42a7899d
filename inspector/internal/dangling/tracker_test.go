package dangling

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

type grid struct{ Cells []ecs.Entity }

type hunts struct{ Prey ecs.Entity }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestTrackerListsWhatDangles: handles of despawned entities in a resource
// and a component are listed with where, since when and by whom, newest
// found first; one found again in a later pass is not new; one cleared
// leaves the list at the end of the next pass; a pass read in small steps
// reads every handle once.
func TestTrackerListsWhatDangles(t *testing.T) {
	w := ecs.NewWorld()
	tr := New(w, 1<<15)
	cells := make([]ecs.Entity, 100)
	for i := range cells {
		cells[i] = w.Spawn()
	}
	ecs.SetResource(w, grid{Cells: cells})
	hunter := w.Spawn()
	must(t, ecs.NewMap[hunts](w).Add(hunter, hunts{Prey: cells[7]}))
	must(t, w.Tick())
	must(t, w.Despawn(cells[7]))
	must(t, w.Despawn(cells[9]))
	for tr.passesNow() == 0 {
		tr.StepUpTo(3) // small steps: a pass spans many
	}
	passes, read, _ := tr.Passes()
	if passes != 1 || read != 101 {
		t.Fatalf("%d passes reading %d handles, want 1 of 101", passes, read)
	}
	a := tr.Audit()
	if a.N != 3 || len(a.List) != 3 {
		t.Fatalf("listed %d (%d shown), want 3: %+v", a.N, len(a.List), a.List)
	}
	byPath := map[string]string{}
	for _, d := range a.List {
		byPath[d.Path] = d.String()
		if d.Since != 2 || d.By != "external" || !strings.Contains(d.Why, "stale") {
			t.Errorf("%s: since %d by %q why %q", d.Path, d.Since, d.By, d.Why)
		}
	}
	for _, p := range []string{"grid.Cells[7]", "grid.Cells[9]", "hunts.Prey"} {
		if byPath[p] == "" {
			t.Errorf("%s not listed: %v", p, byPath)
		}
	}
	// Components are read before resources: the hunter's prey was found
	// first, so it is listed last.
	if first, last := a.List[0], a.List[2]; first.Path != "grid.Cells[9]" || last.Path != "hunts.Prey" || last.Holder != values.Handle(hunter) {
		t.Errorf("the newest first: %+v ... %+v", first, last)
	}
	found, seq := tr.FoundAfter(0)
	if len(found) != 3 || seq != 3 {
		t.Fatalf("found after 0: %d, seq %d", len(found), seq)
	}
	ecs.Resource[grid](w).Cells[9] = ecs.Entity{}
	tr.Step()
	if again, seq2 := tr.FoundAfter(seq); len(again) != 0 || seq2 != seq {
		t.Fatalf("a second pass found %d new (seq %d): the same handles are not new", len(again), seq2)
	}
	if a := tr.Audit(); a.N != 2 {
		t.Fatalf("after the cell was cleared: %d listed, want 2", a.N)
	}
}

// TestTrackerPaceAndAge: a pass under way is always due; between passes
// the scan waits until every has gone by since the last ended; the last
// pass's span is kept.
func TestTrackerPaceAndAge(t *testing.T) {
	w := ecs.NewWorld()
	tr := New(w, 1<<15)
	ecs.SetResource(w, grid{Cells: make([]ecs.Entity, 10)})
	now := time.Now()
	if !tr.Due(now, time.Hour) {
		t.Fatal("the first pass is not due")
	}
	tr.StepUpTo(4)
	if !tr.Due(now, time.Hour) {
		t.Fatal("a pass under way is not due")
	}
	for tr.passesNow() == 0 {
		tr.StepUpTo(4)
	}
	if tr.Due(time.Now(), time.Hour) || !tr.Due(time.Now().Add(2*time.Hour), time.Hour) {
		t.Fatal("between passes the scan is due at once, or never")
	}
	if tr.PassTook() <= 0 {
		t.Fatalf("the pass took %v", tr.PassTook())
	}
}

// passesNow is the passes completed.
func (t *Tracker) passesNow() uint64 { p, _, _ := t.Passes(); return p }

// TestAuditKeepsTheFirstFound: past the listed bound, the list holds the
// newest half and the first found (where a hunt starts), newest first,
// and says how many between it leaves out.
func TestAuditKeepsTheFirstFound(t *testing.T) {
	w := ecs.NewWorld()
	tr := New(w, 1<<15)
	cells := make([]ecs.Entity, 150)
	for i := range cells {
		cells[i] = w.Spawn()
	}
	ecs.SetResource(w, grid{Cells: cells})
	for _, e := range cells {
		must(t, w.Despawn(e))
	}
	tr.Step()
	a := tr.Audit()
	if a.N != 150 || len(a.List) != protocol.MaxDanglingListed || a.Between != 50 {
		t.Fatalf("%d found, %d listed, %d between; want 150, %d, 50", a.N, len(a.List), a.Between, protocol.MaxDanglingListed)
	}
	// Found in the grid's order: cell 149 newest, cell 0 first.
	for i, want := range map[int]string{0: "grid.Cells[149]", 49: "grid.Cells[100]", 50: "grid.Cells[49]", 99: "grid.Cells[0]"} {
		if a.List[i].Path != want {
			t.Errorf("listed %d: %s, want %s", i, a.List[i].Path, want)
		}
	}
}
