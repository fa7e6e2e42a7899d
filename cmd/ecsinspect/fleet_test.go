package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// TestFanOutOverAFleet: dump --all lists every instance with its discovery
// fields and, with --query, each one's total; --filter picks instances;
// exec --all runs on each and names them; a fleet watchpoint fires on the
// one instance with the bug, wait --all says which, and only it pauses.
func TestFanOutOverAFleet(t *testing.T) {
	b, _ := testgame.Fleet(t, 4, 400, "starve", 2)
	url := b.URL()
	code, out, errs := cli("dump", "--all", "--json", "--query", "Predator", url)
	if code != 0 {
		t.Fatalf("dump --all: %d %s %s", code, out, errs)
	}
	var all fleetDump
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("dump --all --json: %v\n%s", err, out)
	}
	if len(all.Instances) != 4 || all.Broker != url {
		t.Fatalf("dump --all: %+v", all)
	}
	for i, e := range all.Instances {
		if want := "demo-0" + string(rune('1'+i)); e.Instance != want || e.Game != "ecosystem" || e.Tick == 0 || e.PID == 0 || e.Error != "" {
			t.Fatalf("instance %d: %+v, want %s", i, e, want)
		}
		if e.Total == nil || *e.Total == 0 || len(e.Matches) == 0 || e.Matches[0].Components["Predator"] == nil {
			t.Fatalf("%s's query: %+v", e.Instance, e)
		}
	}
	code, out, _ = cli("dump", "--all", "--filter", "instance=demo-0[23]", url)
	if code != 0 || !strings.Contains(out, "2 instances") || !strings.Contains(out, "demo-02") || strings.Contains(out, "demo-01") {
		t.Fatalf("dump --all --filter: %d\n%s", code, out)
	}
	if code, _, errs := cli("dump", "--all", "--filter", "nosuch=1", url); code == 0 || !strings.Contains(errs, "no field") {
		t.Fatalf("a filter on no field: %d %s", code, errs)
	}
	code, out, errs = cli("exec", "--all", url, "watch", "Energy.Value<-20")
	// Each instance's watchpoint 1; one that holds it already in the past
	// it keeps (the buggy one, by now) says so under its id.
	if code != 0 || strings.Count(out, ": 1\n")+strings.Count(out, "\n1\npast: ") != 4 {
		t.Fatalf("exec --all watch: %d\n%s%s", code, out, errs)
	}
	code, out, errs = cli("exec", "--all", url, "wait", "--timeout", "3m")
	var hit struct {
		Instance string `json:"instance"`
		Entity   string `json:"entity"`
		By       string `json:"by"`
		Paused   bool   `json:"paused"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &hit) != nil || hit.Instance != "demo-03" || hit.By != "grazing" || !hit.Paused {
		t.Fatalf("exec --all wait: %d %+v\n%s%s", code, hit, out, errs)
	}
	// Only the instance that fired is paused; the pause is held.
	code, out, _ = cli("dump", "--all", "--json", url)
	if code != 0 || json.Unmarshal([]byte(out), &all) != nil {
		t.Fatalf("dump --all after the hit: %d\n%s", code, out)
	}
	for _, e := range all.Instances {
		if e.Paused != (e.Instance == "demo-03") {
			t.Fatalf("after the hit on demo-03, %s paused: %v", e.Instance, e.Paused)
		}
	}
	code, out, _ = cli("exec", "--all", "--filter", "paused=true", url, "resume")
	if code != 0 || strings.TrimSpace(out) != "demo-03: resume: ok" {
		t.Fatalf("exec --all --filter paused=true resume: %d\n%s", code, out)
	}
}
