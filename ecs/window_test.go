package ecs

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// TestCopyRowsIsValueRowByRow: the values CopyRows copies for a list of
// entities (runs of rows, rows out of order, other tables, dead
// entities, sparse and pointer-holding components) are what Value gives
// for each entity and component; CopyWindow's window is Scan's.
func TestCopyRowsIsValueRowByRow(t *testing.T) {
	w := NewWorld()
	pos, hp, name, flee := NewMap[Position](w), NewMap[Health](w), NewMap[Name](w), NewMap[Fleeing](w)
	rng := rand.New(rand.NewPCG(1, 2))
	var ents []Entity
	for i := range 300 {
		e := pos.Spawn(Position{X: float64(i)})
		if i%3 == 0 {
			must(t, hp.Add(e, Health{HP: i}))
		}
		if i%5 == 0 {
			must(t, name.Add(e, Name{Value: "n" + strconv.Itoa(i)}))
		}
		if i%7 == 0 {
			must(t, flee.Add(e, Fleeing{Since: i}))
		}
		ents = append(ents, e)
	}
	for _, e := range ents[:20] {
		must(t, w.Despawn(e))
	}
	ins := w.Inspect()
	cols := []ComponentID{pos.ID(), hp.ID(), name.ID(), flee.ID()}
	lists := [][]Entity{ents, ents[100:140]}
	for range 20 { // random picks, in and out of order
		var l []Entity
		for range rng.IntN(60) {
			l = append(l, ents[rng.IntN(len(ents))])
		}
		lists = append(lists, l)
	}
	window, total, values := ins.CopyWindow(Filter{With: []ComponentID{pos.ID()}}, 10, 50, cols)
	if want, n := ins.Scan(Filter{With: []ComponentID{pos.ID()}}, 10, 50); !reflect.DeepEqual(window, want) || total != n {
		t.Fatalf("CopyWindow's window: %d of %d, Scan's %d of %d", len(window), total, len(want), n)
	}
	lists = append(lists, window)
	for li, l := range lists {
		got := ins.CopyRows(l, cols)
		if li == len(lists)-1 {
			got = values
		}
		for k, id := range cols {
			for i, e := range l {
				v, ok := ins.Value(e, id)
				if got[k].Has[i] != ok {
					t.Fatalf("list %d, %v, component %d: has %v, Value says %v", li, e, id, got[k].Has[i], ok)
				}
				if ok && !reflect.DeepEqual(got[k].Values.Index(i).Interface(), v.Interface()) {
					t.Fatalf("list %d, %v, component %d: copied %v, Value %v", li, e, id, got[k].Values.Index(i), v)
				}
			}
		}
	}
}
