package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// TestFindTheStarveBug is the README's walkthrough: with the demo's starve
// bug on, a watchpoint on a negative Energy no system should write stops
// the game at the write and names the system that made it.
func TestFindTheStarveBug(t *testing.T) {
	sim, addr, _, on := testgame.LiveSim(t, 2000, 5)
	// Without the bug, hunger takes a frame's worth below zero at most and
	// death follows: the watchpoint stays quiet.
	if code, out, errs := cli("exec", addr, "watch", "--log", "Energy.Value<-1"); code != 0 || strings.TrimSpace(out) != "1" {
		t.Fatalf("exec watch: %d %q %s", code, out, errs)
	}
	if code, out, _ := cli("exec", addr, "wait", "--timeout", "1500ms"); code == 0 {
		t.Fatalf("a watchpoint fired without the bug: %s", out)
	}
	if code, _, errs := cli("exec", addr, "unwatch", "1"); code != 0 {
		t.Fatalf("unwatch: %s", errs)
	}
	on(func() {
		if err := sim.SetBug("starve"); err != nil {
			t.Error(err)
		}
	})
	if code, out, errs := cli("exec", addr, "watch", "Energy.Value<-1"); code != 0 || strings.TrimSpace(out) != "2" {
		t.Fatalf("exec watch: %d %q %s", code, out, errs)
	}
	code, out, errs := cli("exec", addr, "wait", "--timeout", "30s")
	if code != 0 {
		t.Fatalf("exec wait: %d %s", code, errs)
	}
	var hit map[string]any
	if err := json.Unmarshal([]byte(out), &hit); err != nil {
		t.Fatalf("exec wait printed no JSON: %v\n%s", err, out)
	}
	value, _ := hit["value"].(map[string]any)
	if hit["watch"] != float64(2) || hit["by"] != "grazing" || hit["component"] != "Energy" || value["Value"] != float64(-40) ||
		hit["paused"] != true || !strings.Contains(hit["entity"].(string), "v") {
		t.Fatalf("the hit:\n%s", out)
	}
}
