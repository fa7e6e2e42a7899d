package ecs

import "testing"

// TestEachChangedWhere: the kernel's bound loop finds the rows written
// whose field passes, and only those; a bound that does not fit is refused.
func TestEachChangedWhere(t *testing.T) {
	w := NewWorld()
	m := NewMap2[Position, Velocity](w)
	var ents []Entity
	for i := range 10 {
		ents = append(ents, m.Spawn(Position{X: float64(i)}, Velocity{}))
	}
	id := ComponentIDOf[Position](w)
	since := w.Inspect().NextChangeTick()
	for _, e := range ents[:6] { // written now: 0..5
		m.a.Get(e).Y = 1
	}
	var got []Entity
	err := w.Inspect().EachChangedWhere(id, since, 0, []RawBound{{Offset: 0, Kind: Float64, Op: GreaterEqual, Value: 3}}, func(e Entity, _ []byte) bool {
		got = append(got, e)
		return true
	})
	if err != nil || len(got) != 3 || got[0] != ents[3] || got[2] != ents[5] {
		t.Fatalf("rows written with X>=3: %v (%v), want 3v1-5v1", got, err)
	}
	if err := w.Inspect().EachChangedWhere(id, since, 0, []RawBound{{Offset: 12, Kind: Float64, Op: Less}}, func(Entity, []byte) bool { return true }); err == nil {
		t.Fatal("a bound past the value's end was taken")
	}
}
