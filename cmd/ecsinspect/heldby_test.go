package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// HomeHive is a relation, as a bee's to its hive.
type HomeHive struct{ ecs.Relation }

// TestDumpShowsATargetsHolders: dump --entity of a hive that bees point
// at through HomeHive gives, in JSON, how many hold it and which; the
// text says it too; a bee's own detail shows its target.
func TestDumpShowsATargetsHolders(t *testing.T) {
	sim, addr, _, onGame := testgame.LiveSim(t, 200, 3)
	var hive ecs.Entity
	var bees []ecs.Entity
	var err error
	onGame(func() {
		home := ecs.NewRel[HomeHive](sim.World)
		hive = sim.World.Spawn()
		for range 30 {
			b := sim.World.Spawn()
			if err = home.Add(b, hive, HomeHive{}); err != nil {
				return
			}
			bees = append(bees, b)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli("dump", addr, "--entity", hive.String(), "--json")
	if code != 0 {
		t.Fatalf("dump --entity: %s", errs)
	}
	var res struct {
		Entity dumpEntity `json:"entity"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	h, ok := res.Entity.HeldBy["HomeHive"]
	if !ok || h.Count != 30 || len(h.Holders) != 30 {
		t.Fatalf("the hive's holders in dump --json: %+v", res.Entity.HeldBy)
	}
	for _, b := range bees {
		if !strings.Contains(out, `"`+b.String()+`"`) {
			t.Fatalf("bee %v is not among the hive's holders: %+v", b, h)
		}
	}
	code, out, _ = cli("dump", addr, "--entity", hive.String())
	if code != 0 || !strings.Contains(out, "held by 30 through HomeHive: ") || !strings.Contains(out, "and 10 more") {
		t.Fatalf("dump --entity's text of the hive:\n%s", out)
	}
	// The bees sit in a table of the hive's own, which dump names.
	code, out, errs = cli("dump", addr, "--json")
	if code != 0 {
		t.Fatalf("dump: %s", errs)
	}
	var sum struct {
		Archetypes []dumpArch `json:"archetypes"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	aimed := 0
	for _, a := range sum.Archetypes {
		if a.Targets["HomeHive"] == hive.String() {
			aimed += a.Entities
		}
	}
	if aimed != 30 {
		t.Fatalf("dump --json lists %d entities in tables aimed at the hive, want its 30 bees: %+v", aimed, sum.Archetypes)
	}
	if code, out, _ = cli("dump", addr); code != 0 || !strings.Contains(out, "HomeHive→"+hive.String()) {
		t.Fatalf("dump's archetypes do not name the hive beside HomeHive:\n%s", out)
	}
	// The query language asks for a target's holders: HomeHive(hive).
	code, out, errs = cli("dump", addr, "--query", "HomeHive("+hive.String()+")", "--json")
	if code != 0 {
		t.Fatalf("dump --query HomeHive(%v): %s", hive, errs)
	}
	var q struct {
		Matches dumpMatches `json:"matches"`
	}
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatal(err)
	}
	if q.Matches.Total != 30 {
		t.Fatalf("HomeHive(%v) matched %d, want the hive's 30 bees", hive, q.Matches.Total)
	}
	if code, out, _ = cli("dump", addr, "--query", "HomeHive("+bees[0].String()+")", "--json"); code != 0 || !strings.Contains(out, `"total": 0`) {
		t.Fatalf("a bee is nobody's hive, yet:\n%s", out)
	}
	// A recording keeps the relations: its review shows the hive's holders
	// and answers the query for them.
	path := filepath.Join(t.TempDir(), "bees.ecsrec")
	if code, _, errs := cli("record", addr, "-o", path, "--frames", "2"); code != 0 {
		t.Fatalf("record: %s", errs)
	}
	code, out, errs = cli("dump", path, "--entity", hive.String(), "--json")
	if code != 0 {
		t.Fatalf("dump --entity of the recording: %s", errs)
	}
	res.Entity = dumpEntity{}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if h := res.Entity.HeldBy["HomeHive"]; h.Count != 30 || len(h.Holders) != 30 {
		t.Fatalf("the recorded hive's holders: %+v", res.Entity.HeldBy)
	}
	if code, out, _ = cli("dump", path, "--query", "HomeHive("+hive.String()+")", "--json"); code != 0 || !strings.Contains(out, `"total": 30`) {
		t.Fatalf("HomeHive(%v) in the recording:\n%s", hive, out)
	}
}
