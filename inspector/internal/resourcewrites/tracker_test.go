package resourcewrites

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

type grid struct {
	W     int
	Cells []ecs.Entity
	Index map[int]int
}

type heights []float32

type huge struct{ Block [5 << 20]byte }

func path(t *testing.T, p string) []protocol.PathStep {
	t.Helper()
	steps, err := protocol.ParsePath(p)
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// writer is who the tracker says last changed resource's part at p, as
// "by@tick", or "" when it does not know.
func writer(t *testing.T, tr *Tracker, resource, p string) string {
	t.Helper()
	w := tr.WriterAt(resource, path(t, p))
	if w == nil {
		return ""
	}
	if !w.Seen {
		t.Fatalf("%s.%s: a writer the tracker saw change the value, not marked seen", resource, p)
	}
	return w.By + "@" + strconv.FormatUint(w.Tick, 10)
}

// TestTheWriterOfEachItem: after a look that takes the copies, a look
// after a system names it for each item it changed and for nothing else;
// a look for other types marks nothing; a slice that grows has its new
// items written; maps are not tracked, and say so.
func TestTheWriterOfEachItem(t *testing.T) {
	w := ecs.NewWorld()
	ecs.SetResource(w, grid{W: 8, Cells: make([]ecs.Entity, 64), Index: map[int]int{}})
	ecs.SetResource(w, heights{1, 2, 3})
	tr := New(w)
	tr.Refresh()
	tr.Look("setup", 1, nil) // the copies: nothing marked
	if got := writer(t, tr, "grid", "Cells[5]"); got != "" {
		t.Fatalf("the first look marked Cells[5] as %s", got)
	}
	g := ecs.Resource[grid](w)
	e := w.Spawn()
	g.Cells[5] = e
	g.W = 9
	tr.Look("other", 2, []reflect.Type{reflect.TypeFor[heights]()}) // a system that does not write grid
	tr.Look("store", 3, []reflect.Type{reflect.TypeFor[grid]()})
	for p, want := range map[string]string{"Cells[5]": "store@3", "Cells[4]": "", "W": "store@3", "Cells[63]": ""} {
		if got := writer(t, tr, "grid", p); got != want {
			t.Errorf("grid.%s written by %q, want %q", p, got, want)
		}
	}
	g.Cells = append(g.Cells, e, e) // a new backing array, two items more
	g.Cells[0] = e
	tr.Look("grow", 4, nil)
	for p, want := range map[string]string{"Cells[64]": "grow@4", "Cells[65]": "grow@4", "Cells[0]": "grow@4", "Cells[5]": "store@3", "Cells[1]": ""} {
		if got := writer(t, tr, "grid", p); got != want {
			t.Errorf("after growing, grid.%s written by %q, want %q", p, got, want)
		}
	}
	h := ecs.Resource[heights](w)
	(*h)[2] = 7
	tr.Look("erode", 5, []reflect.Type{reflect.TypeFor[heights]()})
	if got := writer(t, tr, "heights", "[2]"); got != "erode@5" {
		t.Errorf("a resource that is a slice: item 2 written by %q", got)
	}
	if nt := strings.Join(tr.NotTracked(), "; "); !strings.Contains(nt, "grid.Index: holds pointers") {
		t.Errorf("the map is not tracked, yet not said so: %q", nt)
	}
}

// TestAPauseForgetsWhatChangedUnseen: a change made while nobody looked
// is not pinned on the system of the next look: its item's writer becomes
// unknown, while the items that did not change keep theirs.
func TestAPauseForgetsWhatChangedUnseen(t *testing.T) {
	w := ecs.NewWorld()
	ecs.SetResource(w, grid{Cells: make([]ecs.Entity, 8)})
	tr := New(w)
	tr.Refresh()
	tr.Look("setup", 1, nil)
	g := ecs.Resource[grid](w)
	g.Cells[1] = w.Spawn()
	tr.Look("store", 2, nil)
	tr.Fresh() // looking stops here...
	g.Cells[2] = w.Spawn()
	g.Cells[1] = w.Spawn()
	tr.Look("late", 9, nil) // ...and resumes: a fresh copy
	if got := writer(t, tr, "grid", "Cells[2]"); got != "" {
		t.Errorf("a change made while nobody looked was pinned on %s", got)
	}
	if got := writer(t, tr, "grid", "Cells[1]"); got != "" {
		t.Errorf("an item changed again while nobody looked kept its old writer %s", got)
	}
	g.Cells[3] = w.Spawn()
	tr.Look("store", 10, nil)
	if got := writer(t, tr, "grid", "Cells[3]"); got != "store@10" {
		t.Errorf("after the fresh copy, a change is %q", got)
	}
}

// TestBoundsAndRemovedResources: a part over the bound is not tracked and
// says why; a removed resource is forgotten, with its bytes.
func TestBoundsAndRemovedResources(t *testing.T) {
	w := ecs.NewWorld()
	ecs.SetResource(w, huge{})
	ecs.SetResource(w, grid{Cells: make([]ecs.Entity, 8)})
	tr := New(w)
	tr.Refresh()
	tr.Look("setup", 1, nil)
	if nt := strings.Join(tr.NotTracked(), "; "); !strings.Contains(nt, "huge.Block: over the") {
		t.Fatalf("a 5 MiB part is not said to be over the bound: %q", nt)
	}
	before := tr.bytes
	ecs.RemoveResource[grid](w)
	tr.Refresh()
	if tr.bytes >= before || tr.bytes != 0 {
		t.Fatalf("a removed resource's bytes kept: %d of %d", tr.bytes, before)
	}
	if p := tr.WriterAt("grid", path(t, "Cells[0]")); p != nil {
		t.Fatalf("a removed resource still answers: %+v", p)
	}
}

// TestHandleScanPaths: the path a handle scan reports (field, then item)
// finds the same writer as the protocol's path.
func TestHandleScanPaths(t *testing.T) {
	w := ecs.NewWorld()
	ecs.SetResource(w, grid{Cells: make([]ecs.Entity, 8)})
	tr := New(w)
	tr.Refresh()
	tr.Look("setup", 1, nil)
	ecs.Resource[grid](w).Cells[6] = w.Spawn()
	tr.Look("store", 2, nil)
	p := tr.WriterOf("grid", []ecs.HandleStep{{Name: "Cells"}, {Index: 6}})
	if p == nil || p.By != "store" || p.Tick != 2 {
		t.Fatalf("the scan's path Cells, 6: %+v", p)
	}
}
