package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// TestDiffJSONIsTheDiff: the streamed JSON of a diff reads back as the
// diff's own encoding (notes and all; an empty list is [], not null), one
// entity to a line.
func TestDiffJSONIsTheDiff(t *testing.T) {
	e := protocol.MakeEntityID
	for _, d := range []*recording.WorldDiff{
		{From: 1, To: 2},
		{From: 10, To: 20, Spawned: []protocol.EntityID{e(1, 1), e(2, 1)}, Despawned: []protocol.EntityID{e(3, 2)},
			Changed: []recording.EntityDiff{
				{Entity: e(4, 1), Components: []recording.ComponentChange{{Name: "Health", Fields: []recording.FieldChange{{Path: "HP", Old: protocol.IntValue(3), New: protocol.IntValue(4)}}}}},
				{Entity: e(5, 1), Components: []recording.ComponentChange{{Name: "Frozen", Added: true}}},
			},
			Archetypes: []recording.ArchetypeDiff{{ID: 2, Components: []string{"Health"}, From: 3, To: 4}},
			Resources:  []recording.ComponentChange{{Name: "Clock", Fields: []recording.FieldChange{{Path: "T", Old: protocol.FloatValue(1.5), New: protocol.FloatValue(2)}}}},
			FromAsOf:   "the state as of tick 8", ToAsOf: "tick 20 was not recorded"},
		{From: 1, To: 2, ToAsOf: "only the second"},
	} {
		var out bytes.Buffer
		changed := func(each func(recording.EntityDiff) error) error {
			for _, ed := range d.Changed {
				if err := each(ed); err != nil {
					return err
				}
			}
			return nil
		}
		if err := writeDiffJSON(&out, d, changed); err != nil {
			t.Fatal(err)
		}
		var got, want any
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out.String())
		}
		n := *d // lists print as [] when empty, never null
		n.Spawned, n.Despawned = append([]protocol.EntityID{}, d.Spawned...), append([]protocol.EntityID{}, d.Despawned...)
		n.Changed, n.Archetypes = append([]recording.EntityDiff{}, d.Changed...), append([]recording.ArchetypeDiff{}, d.Archetypes...)
		n.Resources = append([]recording.ComponentChange{}, d.Resources...)
		b, _ := json.Marshal(&n)
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("streamed:\n%s\nwant %s", out.String(), b)
		}
		if len(d.Changed) > 0 && !strings.Contains(out.String(), "\n    {\"entity\":\"5v1\"") {
			t.Fatalf("the second changed entity is not on a line of its own:\n%s", out.String())
		}
	}
}
