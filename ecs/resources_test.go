package ecs

import "testing"

type clock struct{ Seconds float64 }

// TestResources: one value per type, set, read, changed in place,
// replaced in place (pointers stay good), listed for tools with its
// fields, and removed (twice: nothing happens).
func TestResources(t *testing.T) {
	w := NewWorld()
	if Resource[clock](w) != nil {
		t.Fatal("resource before it was set")
	}
	SetResource(w, clock{Seconds: 1})
	p := Resource[clock](w)
	p.Seconds += 2
	SetResource(w, clock{Seconds: p.Seconds + 1}) // replaces in place
	if Resource[clock](w) != p || p.Seconds != 4 {
		t.Errorf("resource = %+v", *Resource[clock](w))
	}
	if rs := w.Inspect().Resources(); len(rs) != 1 || rs[0].Short != "clock" || rs[0].Value.Field(0).Float() != 4 || rs[0].Fields[0].Name != "Seconds" {
		t.Errorf("Resources() = %+v", rs)
	}
	RemoveResource[clock](w)
	if Resource[clock](w) != nil || len(w.Inspect().Resources()) != 0 {
		t.Error("removed resource still there")
	}
	RemoveResource[clock](w)
}
