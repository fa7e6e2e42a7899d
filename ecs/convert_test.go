package ecs

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

type restoreInner struct{ A, B int16 }

type restoreAll struct {
	F     float32
	Name  string
	Who   Entity
	In    restoreInner
	Arr   [3]uint8
	List  []float64
	ByKey map[int]string
	Ptr   *restoreInner
	Raw   []byte
	Keep  int
}

// TestRestoreValueRebuildsWhatTheGameHad: plain data (what a recorded
// wire value becomes) rebuilds every kind of field, NaN included; fields it
// lacks keep their value; numbers that do not fit are refused.
func TestRestoreValueRebuildsWhatTheGameHad(t *testing.T) {
	var got restoreAll
	got.Keep = 9
	who := EntityOf(7, 3)
	data := map[string]any{
		"F": math.NaN(), "Name": "orc", "Who": uint64(who.gen)<<32 | uint64(who.index),
		"In": map[string]any{"A": int64(-2), "B": uint64(5)}, "Arr": []any{uint64(1), uint64(2)},
		"List": []any{1.5, int64(2)}, "ByKey": map[string]any{"4": "four"}, "Ptr": map[string]any{"A": int64(1)},
		"Raw": []byte{9, 8},
	}
	if err := RestoreValue(reflect.ValueOf(&got).Elem(), data); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(got.F)) || got.Name != "orc" || got.Who != who || got.In != (restoreInner{-2, 5}) || got.Arr != [3]uint8{1, 2, 0} ||
		len(got.List) != 2 || got.List[1] != 2 || got.ByKey[4] != "four" || got.Ptr == nil || got.Ptr.A != 1 || string(got.Raw) != "\x09\x08" || got.Keep != 9 {
		t.Fatalf("restored %+v", got)
	}
	if err := RestoreValue(reflect.ValueOf(&got).Elem(), map[string]any{"List": nil, "Ptr": nil}); err != nil || got.List != nil || got.Ptr != nil {
		t.Fatalf("nil slices and pointers: %v, %+v", err, got)
	}
	var parent ChildOf
	if err := RestoreValue(reflect.ValueOf(&parent).Elem(), map[string]any{"Parent": uint64(who.gen)<<32 | uint64(who.index)}); err != nil || parent.Parent() != who {
		t.Fatalf("ChildOf: %v, %v", err, parent.Parent())
	}
	for _, bad := range []map[string]any{{"In": map[string]any{"A": int64(1 << 20)}}, {"Arr": []any{1, 2, 3, 4}}, {"F": 1e300}, {"Nope": 1}} {
		if err := RestoreValue(reflect.ValueOf(&got).Elem(), bad); err == nil {
			t.Errorf("restored %v", bad)
		}
	}
}

type finiteOrNot struct {
	Checked float64
	Free    float64 `ecs:"nonfinite"`
}

// TestToolInputIsChecked: the same conversion for a tool's input refuses
// NaN where the field did not opt in, and a handle this world never issued.
func TestToolInputIsChecked(t *testing.T) {
	w := NewWorld()
	id := ComponentIDOf[finiteOrNot](w)
	if _, err := w.Inspect().NewValue(id, map[string]any{"Checked": math.NaN()}); err == nil || !strings.Contains(err.Error(), "nonfinite") {
		t.Fatalf("NaN in an untagged field: %v", err)
	}
	if v, err := w.Inspect().NewValue(id, map[string]any{"Free": math.Inf(1)}); err != nil || !math.IsInf(v.Interface().(finiteOrNot).Free, 1) {
		t.Fatalf("Inf in a tagged field: %v", err)
	}
	who := ComponentIDOf[restoreAll](w)
	if _, err := w.Inspect().NewValue(who, map[string]any{"Who": "900v1"}); err == nil {
		t.Fatal("a handle never issued was taken")
	}
}
