package client

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestParseCommandSendsWhatItSays: each command line becomes the request
// its words name, with the numbers, entities and flags as written, and bad
// lines are refused with the reason.
func TestParseCommandSendsWhatItSays(t *testing.T) {
	e := protocol.MakeEntityID(42, 3)
	for line, want := range map[string]protocol.Message{
		"pause":                        &protocol.Pause{ID: 7},
		"resume":                       &protocol.Resume{ID: 7},
		"step":                         &protocol.Step{ID: 7, N: 1},
		"step 5":                       &protocol.Step{ID: 7, N: 5},
		"rewind 120":                   &protocol.Rewind{ID: 7, Tick: 120, Exact: true},
		"rewind -60":                   &protocol.Rewind{ID: 7, Back: 60, Exact: true},
		"set 42v3 Health.HP=5":         &protocol.SetField{ID: 7, Entity: e, Path: "Health.HP", Value: protocol.IntValue(5)},
		"parent 42v3 none":             &protocol.SetParent{ID: 7, Entity: e},
		"parent 42v3 7v1":              &protocol.SetParent{ID: 7, Entity: e, Parent: protocol.MakeEntityID(7, 1)},
		"remove 42v3 Frozen":           &protocol.RemoveComponent{ID: 7, Entity: e, Component: "Frozen"},
		"despawn 42v3":                 &protocol.Despawn{ID: 7, Entity: e},
		"despawn 42v3 --recursive":     &protocol.Despawn{ID: 7, Entity: e, Recursive: true},
		"watch Energy.Value<0":         &protocol.Watch{ID: 7, Expr: "Energy.Value<0"},
		"watch --log --keep spawn":     &protocol.Watch{ID: 7, Expr: "spawn", Log: true, Keep: true},
		"unwatch 3":                    &protocol.Unwatch{ID: 7, Watch: 3},
		"watch-off 3":                  &protocol.EnableWatch{ID: 7, Watch: 3},
		"watch-on 3":                   &protocol.EnableWatch{ID: 7, Watch: 3, On: true},
		`add 42v3 Health={"HP":9}`:     &protocol.AddComponent{ID: 7, Entity: e, Component: "Health", Value: protocol.MapValue(protocol.Field{Name: "HP", Value: protocol.IntValue(9)})},
		`spawn Frozen Health={"HP":1}`: &protocol.Spawn{ID: 7, Components: []protocol.ComponentValue{{Component: "Frozen"}, {Component: "Health", Value: protocol.MapValue(protocol.Field{Name: "HP", Value: protocol.IntValue(1)})}}},
	} {
		build, _, err := ParseCommand(strings.Fields(line))
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		got, err := protocol.Encode(build(7))
		if err != nil {
			t.Fatal(err)
		}
		if w, _ := protocol.Encode(want); !bytes.Equal(got, w) {
			m, _ := protocol.Decode(got)
			t.Errorf("%q sends %+v, want %+v", line, m, want)
		}
	}
	for line, says := range map[string]string{
		"step 0":              "not a number of frames",
		"step x":              "not a number of frames",
		"rewind -0":           "not a tick",
		"set 42v3":            "want ENTITY Component.Field=VALUE",
		"set nobody X.Y=1":    "not an entity like 42v3",
		"watch --keep spawn":  "--keep goes with --log",
		"unwatch 0":           "not a watchpoint's number",
		"fly":                 "unknown command",
		"add 42v3 Health={x}": "not a JSON object",
	} {
		if _, _, err := ParseCommand(strings.Fields(line)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want an error saying %q", line, err, says)
		}
	}
}
