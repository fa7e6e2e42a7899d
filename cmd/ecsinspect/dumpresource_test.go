package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// Roost is a resource of handles, as a game keeps a list of who is where.
type Roost struct {
	Members []ecs.Entity
	ByName  map[string]ecs.Entity
}

// Heightmap is a resource too big to print whole.
type Heightmap struct{ Heights []int64 }

// Occupancy is a grid whose cells each list who stands there.
type (
	Occupied  struct{ Who []ecs.Entity }
	Occupancy struct{ Cells []Occupied }
)

// TestDumpResources: dump --json carries every resource with its handles
// as text; --resource prints one whole or at a path, and one too big to
// print whole a page at a time, saying so; a name that is not there is an
// error naming those that are.
func TestDumpResources(t *testing.T) {
	sim, addr, _, onGame := testgame.LiveSim(t, 200, 3)
	var a, b ecs.Entity
	onGame(func() {
		a, b = ecs.EntityOf(0, 1), ecs.EntityOf(1, 1)
		ecs.SetResource(sim.World, Roost{Members: []ecs.Entity{a, b}, ByName: map[string]ecs.Entity{"first": a}})
		ecs.SetResource(sim.World, Heightmap{Heights: make([]int64, 1<<20)})
	})
	var err error
	onGame(func() { err = sim.World.Despawn(b) })
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli("dump", addr, "--json")
	if code != 0 {
		t.Fatalf("dump: %s", errs)
	}
	var res struct {
		Resources map[string]any `json:"resources"`
		Dangling  []dumpDangling `json:"dangling"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	roost, _ := res.Resources["Roost"].(map[string]any)
	if fmt.Sprint(roost["Members"]) != "[0v1 1v1]" || fmt.Sprint(roost["ByName"]) != "map[first:0v1]" {
		t.Errorf("Roost in dump --json: %v", res.Resources["Roost"])
	}
	var dangling *dumpDangling
	for i, d := range res.Dangling {
		if d.Path == "Roost.Members[1]" {
			dangling = &res.Dangling[i]
		}
	}
	if dangling == nil || dangling.In != "resource" || dangling.Handle != "1v1" || dangling.By != "external" || dangling.Since == 0 {
		t.Errorf("the despawned member's handle in dump --json: %+v of %+v", dangling, res.Dangling)
	}
	for _, name := range []string{"Grid", "Seed", "Clock", "Stats", "Heightmap"} {
		if _, ok := res.Resources[name]; !ok {
			t.Errorf("dump --json has no resource %s: %v", name, res.Resources)
		}
	}

	code, out, errs = cli("dump", addr, "--resource", "Roost.Members[1]")
	if code != 0 || !strings.Contains(out, "resource Roost.Members[1] (entity ecs.Entity)") || !strings.Contains(out, `"1v1"`) {
		t.Errorf("--resource Roost.Members[1]: %d\n%s%s", code, out, errs)
	}
	code, out, errs = cli("dump", addr, "--resource", "Heightmap.Heights", "--offset", "7", "--limit", "3", "--json")
	if code != 0 {
		t.Fatalf("--resource Heightmap.Heights: %s", errs)
	}
	var paged struct {
		Resource dumpResource `json:"resource"`
	}
	if err := json.Unmarshal([]byte(out), &paged); err != nil {
		t.Fatal(err)
	}
	r := paged.Resource
	if r.Total != 1<<20 || r.Offset != 7 || len(r.Items) != 3 || r.Items[0].Path != "Heights[7]" || !strings.Contains(r.Note, "4 MiB") {
		t.Errorf("a value too big to print whole: %+v", r)
	}
	// Children listed in brief say so: a cell of 20 occupants shows 8.
	onGame(func() {
		cells := make([]Occupied, 20_000)
		for i := range cells {
			cells[i].Who = make([]ecs.Entity, 20)
		}
		ecs.SetResource(sim.World, Occupancy{Cells: cells})
	})
	code, out, errs = cli("dump", addr, "--resource", "Occupancy.Cells", "--limit", "2", "--json")
	if err := json.Unmarshal([]byte(out), &paged); code != 0 || err != nil {
		t.Fatalf("--resource Occupancy.Cells: %d %v %s", code, err, errs)
	}
	if r := paged.Resource; len(r.Items) != 2 || !r.Items[0].Cut || !strings.Contains(r.Note, "2 of these children are shown in brief") {
		t.Errorf("children in brief, not said: %+v", r)
	}
	if code, _, errs := cli("dump", addr, "--resource", "Weather"); code == 0 || !strings.Contains(errs, "no resource Weather; the world has") || !strings.Contains(errs, "Roost") {
		t.Errorf("--resource Weather: %d %q", code, errs)
	}
}

// TestDumpSaysNoDanglingHandles: with none found, dump --json says so,
// "dangling": [] (not a missing key a script takes for "not looked"), and
// the text says "none found"; a recording, where nobody looked, says null.
func TestDumpSaysNoDanglingHandles(t *testing.T) {
	_, addr, _, _ := testgame.LiveSim(t, 200, 3)
	code, out, errs := cli("dump", addr, "--json")
	if code != 0 {
		t.Fatalf("dump: %s", errs)
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if string(res["dangling"]) != "[]" || string(res["dangling_total"]) != "0" {
		t.Errorf("dump --json of a game with no dangling handle: dangling %s, dangling_total %s; want [] and 0", res["dangling"], res["dangling_total"])
	}
	if code, out, errs = cli("dump", addr); code != 0 || !strings.Contains(out, "dangling handles: none found") {
		t.Errorf("dump's text (%d, %s) does not say no dangling handle was found:\n%s", code, errs, out)
	}
}

// TestDumpSaysTheGamesMemory: dump --json has the game's heap and
// collections as the Go runtime counts them, the text a line of them.
func TestDumpSaysTheGamesMemory(t *testing.T) {
	_, addr, _, _ := testgame.LiveSim(t, 200, 3)
	code, out, errs := cli("dump", addr, "--json")
	if code != 0 {
		t.Fatalf("dump: %s", errs)
	}
	var res struct {
		GC *dumpGC `json:"gc"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if g := res.GC; g == nil || g.HeapBytes == 0 || g.GoalBytes == 0 || g.AllocBytes < g.HeapBytes || g.AllocObjects == 0 {
		t.Fatalf("dump --json's gc: %+v", res.GC)
	}
	if code, out, _ = cli("dump", addr); code != 0 || !strings.Contains(out, "memory: heap ") {
		t.Fatalf("dump's text has no memory line:\n%s", out)
	}
}

// TestDumpPagesItsMatches: a query with more matches than --limit lists
// says which it listed and the --offset of the next page, in text and
// JSON; --offset gives that page.
func TestDumpPagesItsMatches(t *testing.T) {
	_, addr, _, _ := testgame.LiveSim(t, 200, 3)
	code, out, errs := cli("dump", addr, "--query", "Energy", "--limit", "50")
	if code != 0 || !strings.Contains(out, "(listed: 1 to 50; --offset 50 for the next)") {
		t.Fatalf("dump --query --limit 50: %d %s\n%s", code, errs, out)
	}
	page := func(offset string) dumpMatches {
		t.Helper()
		code, out, errs := cli("dump", addr, "--query", "Energy", "--limit", "50", "--offset", offset, "--json")
		if code != 0 {
			t.Fatalf("dump --json --offset %s: %s", offset, errs)
		}
		var res struct {
			Matches dumpMatches `json:"matches"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		return res.Matches
	}
	first, second := page("0"), page("50")
	if first.Next != 50 || first.Total <= 50 || second.Offset != 50 || len(second.Entities) == 0 {
		t.Fatalf("the pages: first of %d, next %d; second from %d, %d listed", first.Total, first.Next, second.Offset, len(second.Entities))
	}
	if second.Entities[0].Entity == first.Entities[0].Entity {
		t.Fatalf("--offset 50 listed the first page again: %s", second.Entities[0].Entity)
	}
}
