package ecs

import (
	"strings"
	"testing"
)

type Stats struct {
	Level int8
	Speed float32
	Tags  [3]uint16
	Slots []Slot
	Home  Position
	Alive bool
	Name  string
	Boss  Entity
}

type Slot struct{ Count int }

func TestSetFieldByPath(t *testing.T) {
	w := NewWorld()
	stats := NewMap[Stats](w)
	e := w.Spawn()
	must(t, stats.Add(e, Stats{Slots: make([]Slot, 2)}))
	boss := w.Spawn()
	ok := []struct {
		path  string
		value any
		check func(s *Stats) bool
	}{
		{"Stats.Level", 12, func(s *Stats) bool { return s.Level == 12 }},
		{"Stats.Level", "-3", func(s *Stats) bool { return s.Level == -3 }},
		{"Stats.Level", 4.0, func(s *Stats) bool { return s.Level == 4 }},
		{"Stats.Speed", 2.5, func(s *Stats) bool { return s.Speed == 2.5 }},
		{"Stats.Tags[2]", uint64(7), func(s *Stats) bool { return s.Tags[2] == 7 }},
		{"Stats.Slots[1].Count", int64(9), func(s *Stats) bool { return s.Slots[1].Count == 9 }},
		{"Stats.Home.Y", float32(1.5), func(s *Stats) bool { return s.Home.Y == 1.5 }},
		{"Stats.Alive", "true", func(s *Stats) bool { return s.Alive }},
		{"Stats.Name", "orc", func(s *Stats) bool { return s.Name == "orc" }},
		{"Stats.Boss", boss.String(), func(s *Stats) bool { return s.Boss == boss }},
		{"Stats.Boss", int64(boss.Generation())<<32 | int64(boss.Index()), func(s *Stats) bool { return s.Boss == boss }},
	}
	for _, tc := range ok {
		if err := w.Inspect().SetField(e, tc.path, tc.value); err != nil {
			t.Errorf("SetField(%s, %v): %v", tc.path, tc.value, err)
			continue
		}
		if !tc.check(stats.Read(e)) {
			t.Errorf("SetField(%s, %v) did not take: %+v", tc.path, tc.value, *stats.Read(e))
		}
	}
}

func TestSetFieldErrors(t *testing.T) {
	w := NewWorld()
	stats := NewMap[Stats](w)
	pos := NewMap[Position](w)
	e := w.Spawn()
	must(t, stats.Add(e, Stats{Level: 1, Slots: make([]Slot, 1)}))
	must(t, pos.Add(e, Position{X: 1}))
	bare := w.Spawn()
	dead := w.Spawn()
	must(t, w.Despawn(dead))
	cases := []struct {
		e     Entity
		path  string
		value any
		want  string
	}{
		{e, "Position.Z", 1, "component Position has no field Z"},
		{e, "Stats.Level", "abc", `Stats.Level wants a number, got "abc"`},
		{e, "Stats.Level", 300, "Stats.Level is an int8: 300 does not fit"},
		{e, "Stats.Level", 2.5, "Stats.Level wants a whole number, got 2.5"},
		{e, "Stats.Tags[3]", 1, "Stats.Tags has 3 elements: index 3 is out of range"},
		{e, "Stats.Slots[4].Count", 1, "Stats.Slots has 1 elements: index 4 is out of range"},
		{e, "Stats.Home.W", 1, "Stats.Home has no field W"},
		{e, "Stats.Level.X", 1, "Stats.Level is a int8, not a struct"},
		{e, "Stats.Name", 5, "Stats.Name wants a string, got 5 (int)"},
		{e, "Stats.Alive", "maybe", `Stats.Alive wants true or false, got "maybe"`},
		{e, "Stats.Boss", "nobody", `Stats.Boss wants an entity like 42v3, got "nobody"`},
		{e, "Stats.Slots", 1, "set its elements or fields one by one"},
		{e, "Stats", 1, "name a field to set"},
		{e, "Nope.X", 1, `no component named "Nope"`},
		{e, "Stats.Tags[x]", 1, "is not a whole number"},
		{e, "", 1, "empty field path"},
		{bare, "Position.X", 1, "has no Position"},
		{dead, "Position.X", 1, "is stale"},
	}
	before := *stats.Read(e)
	for _, tc := range cases {
		err := w.Inspect().SetField(tc.e, tc.path, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetField(%q, %v) = %v, want %q", tc.path, tc.value, err, tc.want)
		}
	}
	after := *stats.Read(e)
	if after.Level != before.Level || after.Name != before.Name || pos.Read(e).X != 1 {
		t.Error("a failed SetField changed the world")
	}
}

func TestSetFieldMarksChanged(t *testing.T) {
	w := NewWorld()
	pos := NewMap[Position](w)
	e := w.Spawn()
	must(t, pos.Add(e, Position{}))
	changed := NewQuery1[Position](w, Changed[Position]())
	collect1(changed)
	must(t, w.Inspect().SetField(e, "Position.X", 3))
	if n := len(collect1(changed)); n != 1 {
		t.Errorf("SetField marked %d rows", n)
	}
}
