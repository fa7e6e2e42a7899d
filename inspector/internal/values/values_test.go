package values

import (
	"math"
	"reflect"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
)

func TestToValueCutsBigLists(t *testing.T) {
	type grid struct{ Cells []float32 }
	v := Of(reflect.ValueOf(grid{Cells: make([]float32, 250_000)}))
	cells, _ := v.Get("Cells")
	if cells.Len() != MaxItems+1 || cells.Index(MaxItems).Str() != "… 249936 more" {
		t.Errorf("a 250,000-item slice became %d items, last %v", cells.Len(), cells.Index(cells.Len()-1))
	}
	if whole, _ := Whole(reflect.ValueOf(grid{Cells: make([]float32, 1000)})).Get("Cells"); whole.Len() != 1000 {
		t.Errorf("a snapshot's value was cut to %d items", whole.Len())
	}
	m := map[string]int{}
	for i := range 100 {
		m[string(rune('a'+i%26))+string(rune('a'+i/26))] = i
	}
	if mv := Of(reflect.ValueOf(m)); mv.Len() != MaxItems+1 {
		t.Errorf("a 100-entry map became %d entries", mv.Len())
	}
}

// TestWireEntitiesAreWireEntity: a list of handles read as wire ids gives
// each handle's id, the zero handle's too.
func TestWireEntitiesAreWireEntity(t *testing.T) {
	es := []ecs.Entity{{}, ecs.EntityOf(1, 1), ecs.EntityOf(7, 3), ecs.EntityOf(1<<31, 1<<30), ecs.EntityOf(math.MaxUint32, math.MaxUint32)}
	got := Handles(es)
	if len(got) != len(es) {
		t.Fatalf("%d ids for %d handles", len(got), len(es))
	}
	for i, e := range es {
		if got[i] != Handle(e) {
			t.Fatalf("%v read as %#x, not %#x", e, uint64(got[i]), uint64(Handle(e)))
		}
	}
}

// likes is a relation the kernel does not know by name: its target shows
// on the wire as Target, a handle, beside its own fields.
type likes struct {
	ecs.Relation
	Weight float32
}

// TestAnyRelationShowsItsTarget: a game's own relation type reaches the
// wire with its target as a handle named as the kernel names it, in the
// values and in the schema, so a client follows it like a ChildOf parent.
func TestAnyRelationShowsItsTarget(t *testing.T) {
	w := ecs.NewWorld()
	target := w.Spawn()
	holder := w.Spawn()
	rel := ecs.NewRel[likes](w)
	rel.Add(holder, target, likes{Weight: 0.5})
	id := ecs.ComponentIDOf[likes](w)
	v, ok := w.Inspect().Value(holder, id)
	if !ok {
		t.Fatal("the holder has no likes value")
	}
	val := Of(v)
	got, ok := val.Get("Target")
	if !ok || got.Uint() != uint64(Handle(target)) {
		t.Fatalf("the target went on the wire as %v (found %v), not %v", got, ok, target)
	}
	if wt, _ := val.Get("Weight"); wt.Float() != 0.5 {
		t.Errorf("the relation's own field read %v", wt)
	}
	s := Schema(w.Inspect().Component(id))
	if len(s.Fields) != 2 || s.Fields[0].Name != "Target" || s.Fields[0].Kind != "entity" {
		t.Errorf("the schema's fields are %+v, want Target (entity) first", s.Fields)
	}
}
