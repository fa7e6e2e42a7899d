package ecs

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// A row leaving a column one at a time leaves its value in place, below
// the column's dirty mark; a table emptied at once is cleared; past the
// mark every row is zero, and a push clears only what it takes below it
// (typedColumn.dirty). Each way a row can leave is tried here; after it,
// every column of every table is checked past its mark, and entities
// made every way a row is taken (one by one, in a batch, moved in without
// the component) hold zero values.
func TestRowsLeaveNothingBehind(t *testing.T) {
	type pos struct{ X, Y float64 }  // pointer-free: the byte paths
	type named struct{ Name string } // with a pointer: the typed paths
	type extra struct{ V int64 }
	leave := map[string]func(w *World, ents []Entity){
		"despawn": func(w *World, ents []Entity) {
			for _, e := range ents[:len(ents)/2] {
				must(t, w.Despawn(e))
			}
		},
		"despawn every one": func(w *World, ents []Entity) {
			for _, e := range ents {
				must(t, w.Despawn(e))
			}
		},
		"despawn the last row": func(w *World, ents []Entity) {
			must(t, w.Despawn(ents[len(ents)-1]))
		},
		"remove a component": func(w *World, ents []Entity) {
			m := NewMap[named](w)
			for _, e := range ents[10:40] {
				must(t, m.Remove(e))
			}
		},
		"add a component": func(w *World, ents []Entity) {
			m := NewMap[extra](w)
			for _, e := range ents[:30] {
				must(t, m.Add(e, extra{7}))
			}
		},
		"despawn a batch": func(w *World, _ []Entity) {
			w.DespawnWhere(Filter{})
		},
		"remove in a batch into an empty table": func(w *World, _ []Entity) {
			_, err := NewMap[named](w).RemoveWhere(Filter{})
			must(t, err)
		},
		"remove in a batch into a table with rows": func(w *World, ents []Entity) {
			m := NewMap[named](w)
			must(t, m.Remove(ents[0]))
			_, err := m.RemoveWhere(Filter{})
			must(t, err)
		},
		"despawn by command": func(w *World, ents []Entity) {
			c := w.NewCommands("test")
			for _, e := range ents[5:25] {
				c.Despawn(e)
			}
			must(t, c.Apply())
		},
		"restore an image": func(w *World, ents []Entity) {
			img, err := w.Image()
			must(t, err)
			w.DespawnWhere(Filter{})
			NewMap2[pos, named](w).SpawnBatch(500, func(i int, _ Entity, p *pos, n *named) { *p, *n = pos{2, 3}, named{"x"} })
			must(t, w.Restore(img))
			for _, e := range ents[:20] {
				must(t, w.Despawn(e))
			}
		},
	}
	for name, f := range leave {
		t.Run(name, func(t *testing.T) {
			w := NewWorld()
			m := NewMap2[pos, named](w)
			var ents []Entity
			for i := range 100 {
				ents = append(ents, m.Spawn(pos{1, float64(i)}, named{fmt.Sprint("n", i)}))
			}
			f(w, ents)
			for _, tb := range w.tables {
				for i, c := range tb.cols {
					if row, ok := firstValuePastDirty(c); ok {
						t.Fatalf("table %v, column %d (%v): row %d past the length %d and the dirty mark holds a value", tb.ids, i, reflect.TypeOf(c), row, tb.len())
					}
				}
			}
			posID, namedID := ComponentIDOf[pos](w), ComponentIDOf[named](w)
			var made []Entity
			gainPos := func(n int) { // entities moved in, pos zero: a batch, or row by row
				for range n {
					e, err := w.SpawnIDs(namedID)
					must(t, err)
					made = append(made, e)
				}
				_, err := w.AddWhere(Filter{With: []ComponentID{namedID}, Without: []ComponentID{posID}}, posID)
				must(t, err)
			}
			gainPos(30)
			for range 3 {
				e, err := w.SpawnIDs(posID, namedID)
				must(t, err)
				made = append(made, e)
			}
			must(t, w.SpawnBatchIDs(40, []ComponentID{posID, namedID}, func(_ int, es []Entity) { made = append(made, es...) }))
			gainPos(2)
			pm, nm := NewMap[pos](w), NewMap[named](w)
			for _, e := range made {
				if p, n := pm.Read(e), nm.Read(e); p == nil || n == nil || *p != (pos{}) || *n != (named{}) {
					t.Fatalf("an entity made after the rows left holds %v, %v", p, n)
				}
			}
		})
	}
}

// firstValuePastDirty finds a row past c's length and its dirty mark,
// within its room, that is not all zero bytes.
func firstValuePastDirty(c column) (row int, found bool) {
	col := reflect.ValueOf(c).Elem()
	data := col.FieldByName("data")
	size := data.Type().Elem().Size()
	h := (*sliceHeader)(unsafe.Pointer(data.UnsafeAddr()))
	from := max(h.len, int(col.FieldByName("dirty").Int()))
	if size == 0 || h.cap <= from {
		return 0, false
	}
	past := unsafe.Slice((*byte)(unsafe.Add(h.ptr, uintptr(from)*size)), uintptr(h.cap-from)*size)
	for i, b := range past {
		if b != 0 {
			return from + i/int(size), true
		}
	}
	return 0, false
}
