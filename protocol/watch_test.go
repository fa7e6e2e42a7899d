package protocol

import (
	"strings"
	"testing"
	"time"
)

func TestParseWatch(t *testing.T) {
	e := MakeEntityID(42, 3)
	good := map[string]WatchSpec{
		"Energy.Value<0":           {Kind: "value", Query: "Energy.Value<0"},
		"42v3 Energy.Value<0":      {Kind: "value", Query: "Energy.Value<0", Entity: e},
		"spawn":                    {Kind: "spawn"},
		"spawn Predator !Fleeing":  {Kind: "spawn", Query: "Predator !Fleeing"},
		"despawn 42v3":             {Kind: "despawn", Entity: e},
		"add Fleeing":              {Kind: "add", Component: "Fleeing"},
		"remove Energy from 42v3":  {Kind: "remove", Component: "Energy", Entity: e},
		"system hunt > 2ms":        {Kind: "system", System: "hunt", Over: 2 * time.Millisecond},
		"frame >20ms":              {Kind: "frame", Over: 20 * time.Millisecond},
		"Position.X>1000 Predator": {Kind: "value", Query: "Position.X>1000 Predator"},
	}
	for expr, want := range good {
		got, err := ParseWatch(expr)
		if err != nil || got != want {
			t.Errorf("ParseWatch(%q) = %+v, %v; want %+v", expr, got, err, want)
		}
	}
	bad := map[string]string{
		"":                   "an empty watchpoint",
		"Predator":           "needs a field test",
		"despawn x":          "not an entity",
		"add":                "takes a component",
		"add Fleeing at 1v1": "takes a component",
		"system hunt":        "compare with >",
		"frame > soon":       "not a duration",
		"frame > -2ms":       "not a duration",
		"Energy.Value<<0":    "query",
	}
	for expr, want := range bad {
		if _, err := ParseWatch(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseWatch(%q): %v, want an error saying %q", expr, err, want)
		}
	}
}

func FuzzParseWatch(f *testing.F) {
	for _, s := range []string{"Energy.Value<0", "42v3 HP.HP<=0", "despawn 1v1", "add X to 2v2", "system a > 1ms", "frame > 3s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseWatch(s)
		if err == nil && spec.Kind == "" {
			t.Fatalf("%q parsed to no kind", s)
		}
	})
}
