package values

import (
	"reflect"
	"testing"
)

// TestPlainCopyIsTheValueThen: a copy converts to what the value was when
// copied, whatever the game writes after; what it cannot copy it says so.
func TestPlainCopyIsTheValueThen(t *testing.T) {
	type cell struct{ Grass []float32 }
	type grid struct {
		Size   int
		Grass  []float32
		Rows   [2][]uint8
		Cells  []cell
		secret []int
	}
	g := grid{Size: 3, Grass: []float32{1, 2, 3}, Rows: [2][]uint8{{1}, {2, 3}}, Cells: []cell{{Grass: []float32{4}}}, secret: []int{9}}
	want := Whole(reflect.ValueOf(g))
	cp, ok := PlainCopy(reflect.ValueOf(g), 0)
	if !ok {
		t.Fatal("a struct of slices was not copied")
	}
	g.Size, g.Grass[0], g.Rows[1][0], g.Cells[0].Grass[0] = 7, 70, 20, 40 // the game goes on
	if got := Whole(cp); !got.Equal(want) {
		t.Fatalf("the copy converts to %v, the value was %v", got, want)
	}
	for _, v := range []any{map[string]int{"a": 1}, &g, struct{ M map[int]int }{}} {
		if _, ok := PlainCopy(reflect.ValueOf(v), 0); ok {
			t.Errorf("%T was copied: its copy would share memory with the game", v)
		}
	}
}
