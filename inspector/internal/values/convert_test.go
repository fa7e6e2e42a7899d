package values

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// node is a navigation graph's node: neighbours with back pointers.
type node struct {
	ID    int
	Links []*node
}

type navGraph struct{ Nodes []*node }

// ring links n nodes each to its next k (a graph full of cycles).
func ring(n, k int) navGraph {
	g := navGraph{Nodes: make([]*node, n)}
	for i := range g.Nodes {
		g.Nodes[i] = &node{ID: i}
	}
	for i, nd := range g.Nodes {
		for j := 1; j <= k; j++ {
			nd.Links = append(nd.Links, g.Nodes[(i+j)%n])
		}
	}
	return g
}

// TestConvertAGraphWithCyclesOnce: a pointer graph with cycles converts
// each node once, in time proportional to the graph (not exponential in
// its depth); a node met again shows as a repeat naming the path where it
// showed first, and that path leads to the node.
func TestConvertAGraphWithCyclesOnce(t *testing.T) {
	g := ring(1000, 6)
	v, made := ConvertCounted(reflect.ValueOf(g), -1, MaxWholeValues)
	// Per node: the pointer, the struct, ID, Links' list, 6 links.
	if made > 1000*10+1 {
		t.Fatalf("converting a 1000-node graph made %d values", made)
	}
	nodes, _ := v.Get("Nodes")
	if nodes.Len() != 1000 {
		t.Fatalf("%d nodes", nodes.Len())
	}
	repeats := 0
	for i := range nodes.Len() {
		n := nodes.Index(i)
		if n.Kind() == protocol.KindString {
			path, ok := strings.CutPrefix(n.Str(), RepeatPrefix)
			if !ok {
				t.Fatalf("node %d is %q", i, n.Str())
			}
			at, ok := v.At(path)
			if id, _ := at.Get("ID"); !ok || id.Int() != int64(i) {
				t.Fatalf("node %d repeats %q, which leads to %v", i, path, at)
			}
			repeats++
		}
	}
	if repeats == 0 {
		t.Fatal("no node was shown as a repeat: the graph was converted along its links")
	}
}

// TestConvertSharedMemoryOnce: a slice and a map that two fields share
// show whole at the first and as a repeat of it at the second.
func TestConvertSharedMemoryOnce(t *testing.T) {
	cells := make([]*node, 3)
	for i := range cells {
		cells[i] = &node{ID: i}
	}
	byName := map[string]*node{"a": cells[0]}
	type twice struct {
		A, B []*node
		M, N map[string]*node
	}
	v := Whole(reflect.ValueOf(twice{A: cells, B: cells, M: byName, N: byName}))
	if b, _ := v.Get("B"); b.Str() != RepeatPrefix+"A" {
		t.Fatalf("B: %v, want a repeat of A", b)
	}
	if n, _ := v.Get("N"); n.Str() != RepeatPrefix+"M" {
		t.Fatalf("N: %v, want a repeat of M", n)
	}
	if a, _ := v.Get("M"); a.Len() != 1 {
		t.Fatalf("M: %v", a)
	}
	if m, _ := v.At("M[a]"); m.Str() != RepeatPrefix+"A[0]" {
		t.Fatalf("M[a]: %v, want a repeat of A[0]", m)
	}
}

// TestConvertWithinItsBudget: a value bigger than the budget (a map of a
// million entries, a slice of ten million numbers) converts no more than
// the budget's values, and says how many were left out.
func TestConvertWithinItsBudget(t *testing.T) {
	big := make(map[int]int, 1_000_000)
	for i := range 1_000_000 {
		big[i] = i
	}
	v, made := ConvertCounted(reflect.ValueOf(big), -1, 1000)
	if made > 1001 || v.Len() != 1000 {
		t.Fatalf("a million-entry map in a budget of 1000: made %d, %d entries", made, v.Len())
	}
	if _, last := v.Entry(v.Len() - 1); !strings.Contains(last.Str(), "more") {
		t.Fatalf("the cut is not said: %v", last)
	}
	floats := make([]float64, 10_000_000)
	v, made = ConvertCounted(reflect.ValueOf(floats), -1, MaxWholeValues)
	if kept := v.Len() - 1; made > MaxWholeValues || kept < MaxWholeValues-1 || v.Index(kept).Str() != fmt.Sprintf("… %d more", len(floats)-kept) {
		t.Fatalf("10M floats: made %d, %d items, last %v", made, v.Len(), v.Index(v.Len()-1))
	}
	type deep struct{ Next *deep }
	var list *deep
	for range 100 {
		list = &deep{Next: list}
	}
	d := Whole(reflect.ValueOf(list))
	for range MaxDepth {
		if next, ok := d.Get("Next"); ok {
			d = next
		}
	}
	if !strings.Contains(d.String(), "deeper than") {
		t.Fatalf("a list 100 deep ends at depth %d as %v, saying nothing", MaxDepth, d)
	}
}

// TestFitsAndCloneByIdentity: a graph with cycles counts each node once
// against Fits' parts, and its Clone is a graph of the same shape (the
// copy's cycles close on the copy, not on the game's memory).
func TestFitsAndCloneByIdentity(t *testing.T) {
	g := ring(1000, 6)
	if _, ok := Fits(reflect.ValueOf(g), 4<<20, 16384); !ok {
		t.Fatal("a 1000-node graph does not fit 16,384 parts")
	}
	if _, ok := Fits(reflect.ValueOf(g), 4<<20, 500); ok {
		t.Fatal("a 1000-node graph fits 500 parts")
	}
	c := Clone(reflect.ValueOf(g)).Interface().(navGraph)
	for i, n := range c.Nodes {
		if n == g.Nodes[i] || n.ID != i || n.Links[0] != c.Nodes[(i+1)%1000] {
			t.Fatalf("the clone's node %d: %p (the game's %p), first link %p, want the clone's %p", i, n, g.Nodes[i], n.Links[0], c.Nodes[(i+1)%1000])
		}
	}
}

// TestDescribeNamesTypeAndSize: a value too big to keep is named by its
// type and size as far as its top says: a list's items and bytes, a map's
// entries, a struct's lists and maps.
func TestDescribeNamesTypeAndSize(t *testing.T) {
	type samples struct {
		Values []float64
		ByID   map[int]int
		Nodes  []*node
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{make([]float64, 12_500_000), "[]float64, 12,500,000 items, 95.4 MiB"},
		{make([]uint16, 100), "[]uint16, 100 items, 200 B"},
		{map[int]int{1: 1, 2: 2}, "map[int]int, 2 entries"},
		{&samples{Values: make([]float64, 2_000_000), ByID: map[int]int{}, Nodes: make([]*node, 3)},
			"values.samples{Values: []float64, 2,000,000 items, 15.3 MiB; ByID: map[int]int, 0 entries; Nodes: []*values.node, 3 items}"},
	} {
		if got := Describe(reflect.ValueOf(c.v)); got != c.want {
			t.Errorf("Describe(%T) = %q, want %q", c.v, got, c.want)
		}
	}
}

// A library's type, as a physics engine keeps a body: unexported state,
// pointers and slices inside.
type (
	libVec   struct{ x, y float64 }
	libShape struct{ radius float64 }
	libBody  struct {
		pos      libVec
		shape    *libShape
		contacts []int
		owner    ecs.Entity
		_        [8]byte
	}
	physics struct{ Body *libBody }
)

// TestLibraryTypesShowTheirState: a component holding a library's type by
// pointer shows the type's unexported fields (not the blank one); a kept
// copy holds its own memory, unexported slices and pointees included, so
// the game's later writes do not reach what is converted.
func TestLibraryTypesShowTheirState(t *testing.T) {
	b := &libBody{pos: libVec{1, 2}, shape: &libShape{radius: 3}, contacts: []int{4, 5}, owner: ecs.EntityOf(7, 2)}
	v := Of(reflect.ValueOf(physics{Body: b}))
	for path, want := range map[string]string{"Body.pos.x": "1", "Body.shape.radius": "3", "Body.contacts[1]": "5", "Body.owner": "8589934599"} {
		if got, ok := v.At(path); !ok || got.String() != want {
			t.Errorf("%s = %v (%v), want %s: %v", path, got, ok, want, v)
		}
	}
	if _, ok := v.At("Body._"); ok {
		t.Errorf("the blank field shows: %v", v)
	}
	k := Keep(reflect.ValueOf(physics{Body: b}))
	if !k.Copy.IsValid() {
		t.Fatalf("not kept: %v", k.Note)
	}
	b.contacts[1], b.shape.radius = 99, 99
	if got, _ := k.Value().At("Body.contacts[1]"); got.Int() != 5 {
		t.Fatalf("the kept copy shares the game's slice: %v", k.Value())
	}
	if got, _ := k.Value().At("Body.shape.radius"); got.Float() != 3 {
		t.Fatalf("the kept copy shares the game's pointee: %v", k.Value())
	}
}
