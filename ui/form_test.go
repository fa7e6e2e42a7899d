package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestComponentFormBuildsWhatItSends: the add form offers only what the
// entity lacks and narrows as typed; the fields typed become the values
// sent, by kind, nested fields as nested maps, empty fields left out; a
// field that does not parse is named, focused, and nothing is sent.
func TestComponentFormBuildsWhatItSends(t *testing.T) {
	c, src, _ := fixture()
	nested := protocol.Component{ID: 9, Short: "Body", Fields: []protocol.FieldSchema{
		{Name: "Mass", Kind: "float", Type: "float64", Size: 8},
		{Name: "At", Kind: "struct", Type: "Vec", Fields: []protocol.FieldSchema{{Name: "X", Kind: "int", Type: "int32"}, {Name: "Y", Kind: "int", Type: "int32"}}},
	}}
	c.summary.Components = append(c.summary.Components, nested)
	e := protocol.MakeEntityID(4, 1)
	add := newComponentForm(c, false, e, map[string]bool{"Position": true})
	var offered []string
	for _, comp := range add.visible() {
		offered = append(offered, comp.Short)
	}
	if strings.Join(offered, " ") != "Body Energy Fleeing Target" {
		t.Fatalf("the add form offers %v", offered)
	}
	add.narrow = "en"
	if vis := add.visible(); len(vis) != 1 || vis[0].Short != "Energy" {
		t.Fatalf("narrowed to %q: %v", add.narrow, vis)
	}
	add.narrow = "bo"
	add.startFields(add.chosen())
	if len(add.fields) != 3 || add.fields[2].path[1] != "Y" {
		t.Fatalf("Body's leaf fields: %+v", add.fields)
	}
	add.fields[0].input.SetValue("2.5")
	add.fields[2].input.SetValue("-3")
	if _, err := add.request(src); err != nil {
		t.Fatal(err)
	}
	sent, ok := src.reqs[len(src.reqs)-1].(*protocol.AddComponent)
	if !ok || sent.Entity != e || sent.Component != "Body" || sent.Value.String() != "{Mass:2.5 At:{Y:-3}}" {
		t.Fatalf("sent %#v (%v)", src.reqs[len(src.reqs)-1], sent.Value)
	}

	spawn := newComponentForm(c, true, 0, nil)
	spawn.marked["Energy"], spawn.marked["Fleeing"] = true, true
	spawn.startFields(spawn.chosen())
	spawn.fields[0].input.SetValue("lots")
	before := len(src.reqs)
	if _, err := spawn.request(src); err == nil || !strings.Contains(err.Error(), "Energy.Value") || spawn.focus != 0 || len(src.reqs) != before {
		t.Fatalf("a bad number: %v, focus %d, %d requests sent", err, spawn.focus, len(src.reqs)-before)
	}
	spawn.fields[0].input.SetValue("7")
	if _, err := spawn.request(src); err != nil {
		t.Fatal(err)
	}
	s, ok := src.reqs[len(src.reqs)-1].(*protocol.Spawn)
	if !ok || len(s.Components) != 2 || s.Components[0].Component != "Energy" || s.Components[0].Value.String() != "{Value:7}" || s.Components[1].Component != "Fleeing" {
		t.Fatalf("spawned %#v", src.reqs[len(src.reqs)-1])
	}
}
