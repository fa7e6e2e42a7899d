package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
)

// TestDumpSaysWhatSystemsAllocate: once the agent has sampled some
// frames, dump --json gives each system's allocations a run (or that its
// runs were shared), and the text says them.
func TestDumpSaysWhatSystemsAllocate(t *testing.T) {
	sim, addr, _, onGame := testgame.LiveSim(t, 2_000, 3)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) { // frames enough for the sampled ones
		var frame uint64
		onGame(func() { frame = sim.World.Frame() })
		if frame >= 60 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the game ran %d frames in a minute", frame)
		}
	}
	code, out, errs := cli("dump", addr, "--json")
	if code != 0 {
		t.Fatalf("dump: %s", errs)
	}
	var res struct {
		Systems []dumpSystem `json:"systems"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Systems) == 0 {
		t.Fatal("no systems in dump --json")
	}
	for _, s := range res.Systems {
		if s.AllocRuns+s.AllocShared == 0 {
			t.Fatalf("%s: no run measured for its allocations: %+v", s.Name, s)
		}
	}
	if !strings.Contains(out, `"alloc_bytes"`) {
		t.Fatalf("dump --json has no alloc_bytes:\n%s", out)
	}
	if code, out, _ = cli("dump", addr); code != 0 || !strings.Contains(out, "a run") && !strings.Contains(out, "allocations shared") {
		t.Fatalf("dump's systems say nothing of allocations:\n%s", out)
	}
}
