package ecs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/benchpair"
)

// Components and resources that keep handles, every way a game does.
type (
	hunts    struct{ Prey Entity }
	pockets  struct{ Slots [3]Entity }
	flock    struct{ Members []Entity }
	contacts struct{ ByName map[string]Entity }
	owed     struct{ Debtors map[Entity]int }
	noted    struct{ Note *hunts }
	anything struct{ V any }
	bonds    struct{ Pairs []struct{ A, B Entity } }
	hideout  struct{ Who Entity }
	// noHandles is read never: it holds no handle.
	noHandles struct {
		X, Y float64
		Name string
	}
	patchGrid struct {
		W     int
		Cells []Entity
	}
	selfRef struct {
		Next *selfRef
		Who  Entity
	}
)

func (hideout) Storage() StorageKind { return SparseStorage }

// pathText writes a found handle's place as a tool would.
func pathText(f FoundHandle, w *World) string {
	var b strings.Builder
	if f.Resource != "" {
		b.WriteString(f.Resource)
	} else {
		fmt.Fprintf(&b, "%v %s", f.Holder, w.Inspect().Component(f.Component).Short)
	}
	for _, st := range f.Path {
		switch {
		case st.Name != "":
			b.WriteString("." + st.Name)
		case st.Key.IsValid() && st.IsKey:
			fmt.Fprintf(&b, "[key %v]", st.Key)
		case st.Key.IsValid():
			fmt.Fprintf(&b, "[%v]", st.Key)
		default:
			fmt.Fprintf(&b, "[%d]", st.Index)
		}
	}
	fmt.Fprintf(&b, " = %v", f.Handle)
	return b.String()
}

// scanAll runs a whole pass with the given budget per step and returns
// what it found, in the order found, and the steps it took.
func scanAll(t *testing.T, w *World, budget int) ([]string, int) {
	t.Helper()
	s := w.Inspect().NewHandleScan()
	var found []string
	for steps := 1; steps < 100_000; steps++ {
		read, done := s.Step(budget, func(f FoundHandle) { found = append(found, pathText(f, w)) })
		if read > budget+8 {
			t.Fatalf("a step of budget %d read %d handles", budget, read)
		}
		if done {
			return found, steps
		}
	}
	t.Fatal("the pass never ended")
	return nil, 0
}

// TestHandleScanFindsDeadHandles: handles to despawned entities are found
// wherever a component or resource keeps them (a field, an array, a slice,
// a map's values and keys, behind a pointer or an interface, a sparse
// component), each with its holder and path; the zero handle and live ones
// are not; a pass in steps of one handle finds what a pass in one step does.
func TestHandleScanFindsDeadHandles(t *testing.T) {
	w := NewWorld()
	live, dead := w.Spawn(), w.Spawn()
	holders := make([]Entity, 10)
	for i := range holders {
		holders[i] = w.Spawn()
	}
	must(t, NewMap[hunts](w).Add(holders[0], hunts{Prey: dead}))
	must(t, NewMap[hunts](w).Add(holders[1], hunts{Prey: live}))
	must(t, NewMap[pockets](w).Add(holders[2], pockets{Slots: [3]Entity{live, {}, dead}}))
	must(t, NewMap[flock](w).Add(holders[3], flock{Members: []Entity{live, dead, dead}}))
	must(t, NewMap[contacts](w).Add(holders[4], contacts{ByName: map[string]Entity{"a": live, "b": dead}}))
	must(t, NewMap[owed](w).Add(holders[5], owed{Debtors: map[Entity]int{dead: 3, live: 4}}))
	must(t, NewMap[noted](w).Add(holders[6], noted{Note: &hunts{Prey: dead}}))
	must(t, NewMap[anything](w).Add(holders[7], anything{V: hunts{Prey: dead}}))
	must(t, NewMap[bonds](w).Add(holders[8], bonds{Pairs: []struct{ A, B Entity }{{live, dead}}}))
	must(t, NewMap[hideout](w).Add(holders[9], hideout{Who: dead}))
	must(t, NewMap[noHandles](w).Add(holders[9], noHandles{X: 1}))
	SetResource(w, patchGrid{W: 2, Cells: []Entity{live, dead, {}, dead}})
	loop := &selfRef{Who: dead}
	loop.Next = loop
	SetResource(w, *loop)
	must(t, w.Despawn(dead))

	want := []string{
		fmt.Sprintf("%v hunts.Prey = %v", holders[0], dead),
		fmt.Sprintf("%v pockets.Slots[2] = %v", holders[2], dead),
		fmt.Sprintf("%v flock.Members[1] = %v", holders[3], dead),
		fmt.Sprintf("%v flock.Members[2] = %v", holders[3], dead),
		fmt.Sprintf("%v contacts.ByName[b] = %v", holders[4], dead),
		fmt.Sprintf("%v owed.Debtors[key %v] = %v", holders[5], dead, dead),
		fmt.Sprintf("%v noted.Note.Prey = %v", holders[6], dead),
		fmt.Sprintf("%v anything.V.Prey = %v", holders[7], dead),
		fmt.Sprintf("%v bonds.Pairs[0].B = %v", holders[8], dead),
		fmt.Sprintf("%v hideout.Who = %v", holders[9], dead),
		fmt.Sprintf("patchGrid.Cells[1] = %v", dead),
		fmt.Sprintf("patchGrid.Cells[3] = %v", dead),
	}
	whole, _ := scanAll(t, w, 1<<20)
	slices.Sort(whole)
	slices.Sort(want)
	// The self-referencing resource: its handle is found at every depth
	// the scan follows it to, at most maxHandleDepth.
	var loops int
	whole = slices.DeleteFunc(whole, func(s string) bool {
		if strings.HasPrefix(s, "selfRef") {
			loops++
			return true
		}
		return false
	})
	if !slices.Equal(whole, want) {
		t.Fatalf("found:\n%s\nwant:\n%s", strings.Join(whole, "\n"), strings.Join(want, "\n"))
	}
	if loops == 0 || loops > maxHandleDepth+1 {
		t.Errorf("a resource that holds itself was read %d times deep", loops)
	}
	stepped, steps := scanAll(t, w, 1)
	stepped = slices.DeleteFunc(stepped, func(s string) bool { return strings.HasPrefix(s, "selfRef") })
	slices.Sort(stepped)
	if !slices.Equal(stepped, want) || steps < 10 {
		t.Fatalf("in steps of one handle (%d steps) found:\n%s", steps, strings.Join(stepped, "\n"))
	}
}

// TestDeathOfSaysWhenAndWho: a despawned entity's handle reads back the
// frame it died in and, with death notes on, the system whose commands
// despawned it; a handle of an earlier life of a reused slot reads
// nothing, nor does a live one.
func TestDeathOfSaysWhenAndWho(t *testing.T) {
	w := NewWorld()
	w.Inspect().EnableDeathNotes(true)
	victim, bystander := w.Spawn(), w.Spawn()
	s := NewSchedule()
	s.Add("hunting", func(w *World, c *Commands) {
		if w.Frame() == 5 {
			c.Despawn(victim)
		}
	})
	for range 8 {
		s.Run(w)
		must(t, w.Tick())
	}
	frame, by, ok := w.Inspect().DeathOf(victim)
	if !ok || frame != 6 || by != "hunting" { // during the sixth frame, five completed
		t.Fatalf("the victim died at %d by %q (known %v), want frame 6 by hunting", frame, by, ok)
	}
	if _, _, ok := w.Inspect().DeathOf(bystander); ok {
		t.Error("a live entity has a death")
	}
	again := w.Spawn() // the victim's slot, next generation
	if again.Index() != victim.Index() {
		t.Skip("the slot was not reused")
	}
	must(t, w.Despawn(again))
	if f, _, ok := w.Inspect().DeathOf(again); !ok || f != 9 {
		t.Errorf("the slot's second life died at %d (%v), want 9", f, ok)
	}
	if _, _, ok := w.Inspect().DeathOf(victim); ok {
		t.Error("the first life's death is still read after the slot lived again")
	}
	batch := []Entity{w.Spawn(), w.Spawn()}
	must(t, NewMap[hunts](w).Add(batch[0], hunts{}))
	must(t, NewMap[hunts](w).Add(batch[1], hunts{}))
	w.DespawnWhere(Filter{With: []ComponentID{ComponentIDOf[hunts](w)}})
	for _, e := range batch {
		if f, by, ok := w.Inspect().DeathOf(e); !ok || f != 9 || by != "external" {
			t.Errorf("%v despawned in a batch: frame %d by %q (%v)", e, f, by, ok)
		}
	}
}

// BenchmarkHandleScan is a whole pass over 100,000 components that each
// keep a handle (one in ten dangling), against plain Go reading the same
// handles from a slice and asking the world whether each is alive.
// ns/handle.
func BenchmarkHandleScan(b *testing.B) {
	const n = 100_000
	w := NewWorld()
	targets := make([]Entity, n)
	for i := range targets {
		targets[i] = w.Spawn()
	}
	plain := make([]hunts, n)
	m := NewMap[hunts](w)
	for i := range targets {
		plain[i] = hunts{Prey: targets[(i*7)%n]}
		must(b, m.Add(w.Spawn(), plain[i]))
	}
	for i := 0; i < n; i += 10 {
		must(b, w.Despawn(targets[i]))
	}
	s := w.Inspect().NewHandleScan()
	var found, plainFound int
	pass := func() {
		found = 0
		if _, done := s.Step(1<<30, func(FoundHandle) { found++ }); !done {
			b.Fatal("the pass did not end")
		}
	}
	baseline := func() {
		plainFound = 0
		for i := range plain {
			if e := plain[i].Prey; !e.IsZero() && !w.Alive(e) {
				plainFound++
			}
		}
	}
	pass()
	baseline()
	if found != n/10 || plainFound != n/10 {
		b.Fatalf("the scan found %d, plain Go %d, want %d", found, plainFound, n/10)
	}
	benchpair.Run(b, n, "ns/handle", pass, baseline)
}

// bigBed is a resource as big as a game's grid gets: a list of 10,000
// handles and a map of 5,000.
type bigBed struct {
	Cells  []Entity
	ByCell map[int]Entity
}

// TestHandleScanResumesInsideAResource: a resource far bigger than the
// budget is read across steps, each within the budget (and one value's
// worth), and the pass finds what one unbounded step finds.
func TestHandleScanResumesInsideAResource(t *testing.T) {
	w := NewWorld()
	live, dead := w.Spawn(), w.Spawn()
	bed := bigBed{Cells: make([]Entity, 10_000), ByCell: map[int]Entity{}}
	for i := range bed.Cells {
		bed.Cells[i] = live
		if i%1000 == 7 {
			bed.Cells[i] = dead
		}
	}
	for i := range 5000 {
		bed.ByCell[i] = live
		if i%1000 == 3 {
			bed.ByCell[i] = dead
		}
	}
	SetResource(w, bed)
	must(t, w.Despawn(dead))
	whole, _ := scanAll(t, w, 1<<30)
	stepped, steps := scanAll(t, w, 100)
	slices.Sort(whole)
	slices.Sort(stepped)
	if len(whole) != 15 || !slices.Equal(whole, stepped) {
		t.Fatalf("whole pass found %d, stepped %d:\n%s\n--\n%s", len(whole), len(stepped), strings.Join(whole, "\n"), strings.Join(stepped, "\n"))
	}
	if steps < 150 {
		t.Errorf("15,000 handles in steps of 100 took %d steps", steps)
	}
}

// TestHandleScanCutsAHugeComponentValue: a component value holding more
// handles than one value may cost is read up to the bound and counted as
// cut; the pass goes on to the rest.
func TestHandleScanCutsAHugeComponentValue(t *testing.T) {
	w := NewWorld()
	dead := w.Spawn()
	huge := flock{Members: make([]Entity, maxValueUnits+1000)}
	for i := range huge.Members {
		huge.Members[i] = dead
	}
	must(t, NewMap[flock](w).Add(w.Spawn(), huge))
	must(t, NewMap[hunts](w).Add(w.Spawn(), hunts{Prey: dead}))
	must(t, w.Despawn(dead))
	s := w.Inspect().NewHandleScan()
	found := map[string]int{}
	for {
		_, done := s.Step(1<<30, func(f FoundHandle) { found[w.Inspect().Component(f.Component).Short]++ })
		if done {
			break
		}
	}
	if found["flock"] > maxValueUnits+1 || found["flock"] < maxValueUnits-1 || found["hunts"] != 1 || s.Cut() != 1 {
		t.Fatalf("found %v, %d values cut; want the flock read to %d, the hunter read, one cut", found, s.Cut(), maxValueUnits)
	}
}

// TestOnDespawnSeesTheEntityWhole: the function OnDespawn asks for is
// told of every despawn, one at a time, in a batch and by a system's
// commands, with the frame and who despawns, while the entity's
// components (dense and sparse) are still there to read.
func TestOnDespawnSeesTheEntityWhole(t *testing.T) {
	w := NewWorld()
	Register[hunts](w, SparseStorage)
	hp, prey := NewMap[Health](w), NewMap[hunts](w)
	type seen struct {
		frame uint64
		by    string
		hp    int
		prey  bool
	}
	got := map[Entity]seen{}
	w.Inspect().OnDespawn(func(e Entity, frame uint64, by string) {
		h, _ := w.Inspect().Value(e, ComponentIDOf[Health](w))
		got[e] = seen{frame, by, int(h.FieldByName("HP").Int()), prey.Has(e)}
	})
	spawn := func(n int) Entity {
		e := w.Spawn()
		must(t, hp.Add(e, Health{HP: n}))
		must(t, prey.Add(e, hunts{}))
		return e
	}
	one, byCommands := spawn(1), spawn(2)
	batch := []Entity{spawn(3), spawn(4)}
	must(t, w.Despawn(one))
	s := NewSchedule()
	s.Add("hunting", func(w *World, c *Commands) { c.Despawn(byCommands) })
	s.Run(w)
	must(t, w.Tick())
	w.DespawnWhere(Filter{With: []ComponentID{ComponentIDOf[Health](w)}})
	want := map[Entity]seen{
		one:        {1, "external", 1, true},
		byCommands: {1, "hunting", 2, true},
		batch[0]:   {2, "external", 3, true},
		batch[1]:   {2, "external", 4, true},
	}
	for e, wv := range want {
		if got[e] != wv {
			t.Errorf("%v: told %+v, want %+v", e, got[e], wv)
		}
	}
	w.Inspect().OnDespawn(nil)
	must(t, w.Despawn(w.Spawn()))
	if len(got) != len(want) {
		t.Errorf("told of %d despawns, want %d (none after OnDespawn(nil))", len(got), len(want))
	}
}

// A second sparse component that keeps a handle.
type lookout struct{ Watching Entity }

func (lookout) Storage() StorageKind { return SparseStorage }

// TestHandleScanReadsEverySparseComponentWhole: with two sparse components
// holding dead handles, a pass finds each holder's once, whole or in steps
// of one handle.
func TestHandleScanReadsEverySparseComponentWhole(t *testing.T) {
	w := NewWorld()
	dead := w.Spawn()
	var want []string
	for i := range 3 {
		a, b := w.Spawn(), w.Spawn()
		must(t, NewMap[hideout](w).Add(a, hideout{Who: dead}))
		must(t, NewMap[lookout](w).Add(b, lookout{Watching: dead}))
		want = append(want, fmt.Sprintf("%v hideout.Who = %v", a, dead), fmt.Sprintf("%v lookout.Watching = %v", b, dead))
		if i == 0 { // the second holds more than the first
			c := w.Spawn()
			must(t, NewMap[lookout](w).Add(c, lookout{Watching: dead}))
			want = append(want, fmt.Sprintf("%v lookout.Watching = %v", c, dead))
		}
	}
	must(t, w.Despawn(dead))
	slices.Sort(want)
	for _, budget := range []int{1, 2, 1 << 20} {
		found, _ := scanAll(t, w, budget)
		slices.Sort(found)
		if !slices.Equal(found, want) {
			t.Fatalf("budget %d found:\n%s\nwant:\n%s", budget, strings.Join(found, "\n"), strings.Join(want, "\n"))
		}
	}
}
