package ecs

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// TestCaptureSaysWhichRowsMoved: after a capture, rows that moved without
// a write (a despawn's swap-remove, a batch that empties a table into
// another) come in the next capture with every row's entity and value, so
// a reader rebuilds the tables as they are; a table nothing happened to
// is left out.
func TestCaptureSaysWhichRowsMoved(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	var ents []Entity
	for i := range 5 {
		ents = append(ents, pos.Spawn(Position{X: float64(i)}))
	}
	other := NewMap[Health](w)
	other.Spawn(Health{HP: 1})
	c := w.Inspect().NewCapturer()
	if first := c.Capture(false); !first.Full || len(first.Tables) != 2 {
		t.Fatalf("the first capture: full %v, %d tables", first.Full, len(first.Tables))
	}
	if err := w.Despawn(ents[1]); err != nil { // ents[4] moves into row 1
		t.Fatal(err)
	}
	got := c.Capture(false)
	tc := tableOf(t, got, pos.ID())
	if want := []Entity{ents[0], ents[4], ents[2], ents[3]}; !slices.Equal(tc.Entities, want) || !tc.All {
		t.Fatalf("after a swap-remove: entities %v (all %v), want %v", tc.Entities, tc.All, want)
	}
	if x := rawFloat(tc.Columns[0].Raw, 16, 1); x != 4 {
		t.Fatalf("row 1 holds X=%v, want the moved entity's 4", x)
	}
	if len(got.Tables) != 1 {
		t.Fatalf("%d tables captured, want only the one whose rows moved", len(got.Tables))
	}
	// A batch moves the whole table: the table it left is empty, the one
	// it went to holds every row.
	if _, err := w.AddWhere(Filter{With: []ComponentID{pos.ID()}}, ComponentIDOf[Frozen](w)); err != nil {
		t.Fatal(err)
	}
	got = c.Capture(false)
	if left := tableOf(t, got, pos.ID()); left.Len != 0 {
		t.Fatalf("the emptied table says %d rows", left.Len)
	}
	var moved *TableCapture
	for i := range got.Tables {
		if len(got.Tables[i].Components) == 2 {
			moved = &got.Tables[i]
		}
	}
	if moved == nil || len(moved.Entities) != 4 || !moved.All {
		t.Fatalf("the table the batch filled: %+v", moved)
	}
}

// tableOf is the captured table holding exactly component id.
func tableOf(t *testing.T, c *Capture, id ComponentID) *TableCapture {
	t.Helper()
	for i := range c.Tables {
		if tc := &c.Tables[i]; !tc.Sparse && slices.Equal(tc.Components, []ComponentID{id}) {
			return tc
		}
	}
	t.Fatalf("no table of component %d in the capture", id)
	return nil
}

// rawFloat reads the first float64 of row in raw values of size bytes.
func rawFloat(raw []byte, size, row int) float64 {
	return math.Float64frombits(binary.NativeEndian.Uint64(raw[row*size:]))
}

// TestFirstCaptureListsTheNewestWrites: a first capture lists as changed
// every row written, the newest run's writes and a write made since
// outside any run included.
func TestFirstCaptureListsTheNewestWrites(t *testing.T) {
	type V struct{ X int }
	w := NewWorld()
	w.Inspect().TrackChanges()
	m := NewMap[V](w)
	a, b := m.Spawn(V{}), m.Spawn(V{})
	for p := range NewQuery1[V](w, Mut[V]()).All() {
		p.X++
	}
	m.Get(b).X++ // outside any run: the next run's stamp
	c := w.Inspect().NewCapturer().Capture(false)
	for _, tc := range c.Tables {
		if tc.Len == 2 && tc.Entities[0] == a {
			if got := tc.Columns[0].Changed; len(got) != 2 {
				t.Fatalf("the first capture lists rows %v as changed, want both", got)
			}
			return
		}
	}
	t.Fatal("the capture holds no table of the two entities")
}

// TestCaptureFindsRowsAddedInAChunkWrittenWhole: rows spawned one by one
// into a chunk that a query then writes whole still come as added (the
// chunk's stamp says every row changed; the rows' own stamps say which
// were added), and the rows added before the last capture do not.
func TestCaptureFindsRowsAddedInAChunkWrittenWhole(t *testing.T) {
	type V struct{ X int }
	w := NewWorld()
	w.Inspect().TrackChanges()
	m := NewMap[V](w)
	all := NewQuery1[V](w, Mut[V]())
	for range 200 {
		m.Spawn(V{})
	}
	c := w.Inspect().NewCapturer()
	c.Capture(false)
	for range 3 {
		m.Spawn(V{X: 1})
	}
	for v := range all.All() {
		v.X++
	}
	got := tableOf(t, c.Capture(false), m.ID()).Columns[0]
	if want := []int32{200, 201, 202}; !slices.Equal(got.Added, want) || len(got.Changed) != 203 {
		t.Fatalf("added %v (want %v), %d rows changed (want 203)", got.Added, want, len(got.Changed))
	}
}
