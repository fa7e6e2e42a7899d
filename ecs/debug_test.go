//go:build ecsdebug

package ecs

import (
	"fmt"
	"strings"
	"testing"
)

// panicText runs f and returns what it panicked with, "" if it did not.
func panicText(f func()) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// TestDebugUndeclaredWrite: under ecsdebug the schedule names a system
// that writes a component it declared only as read, and lets one that
// declared its writes run.
func TestDebugUndeclaredWrite(t *testing.T) {
	type Pos struct{ X float64 }
	type Vel struct{ X float64 }
	w := NewWorld()
	pos, vel := NewMap[Pos](w), NewMap[Vel](w)
	var ents []Entity
	for range 10 {
		e := w.Spawn()
		must(t, pos.Add(e, Pos{}))
		must(t, vel.Add(e, Vel{X: 1}))
		ents = append(ents, e)
	}
	honest := NewSchedule()
	honest.Add("move", func(w *World, _ *Commands) {
		for _, e := range ents {
			pos.Get(e).X += vel.Read(e).X
		}
	}, Reads[Vel](), Writes[Pos]())
	if msg := panicText(func() { honest.Run(w) }); msg != "" {
		t.Fatalf("a system that declared its writes was stopped: %s", msg)
	}
	w.Inspect().NextStamp()
	sneaky := NewSchedule()
	sneaky.Add("sneaky", func(w *World, _ *Commands) {
		vel.Get(ents[2]).X = 5 // Get marks the row written: Vel was declared read
	}, Reads[Vel](), Writes[Pos]())
	msg := panicText(func() { sneaky.Run(w) })
	if !strings.Contains(msg, `system "sneaky" wrote 1 rows of`) || !strings.Contains(msg, "Vel") {
		t.Fatalf("an undeclared write went unnamed: %q", msg)
	}
}

// TestDebugIndexChecks: the unchecked accessors check their index.
func TestDebugIndexChecks(t *testing.T) {
	s := make([]int, 3, 8)
	if msg := panicText(func() { valueAt(s, 3) }); !strings.Contains(msg, "column index 3 out of range [0:3]") {
		t.Fatalf("valueAt past the length: %q", msg)
	}
	if msg := panicText(func() { u32At(make([]uint32, 2), 2) }); !strings.Contains(msg, "index 2 out of range") {
		t.Fatalf("u32At past the capacity: %q", msg)
	}
	if msg := panicText(func() { valueAt(s, 2) }); msg != "" {
		t.Fatalf("valueAt in range panicked: %q", msg)
	}
}
