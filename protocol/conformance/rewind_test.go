package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector"
)

// rewindRange waits for a summary whose telemetry's rw satisfies ok.
func rewindRange(t *testing.T, c *rawClient, ok func(rw map[string]any) bool) (rw map[string]any, paused bool, tick int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		m, err := c.tryRecv(time.Until(deadline))
		if err != nil {
			t.Fatalf("no summary with the rewind range wanted: %v", err)
		}
		if m.typ != typeSummary {
			continue
		}
		ag, _ := m.body["ag"].(map[string]any)
		rw, _ = ag["rw"].(map[string]any)
		if rw != nil && ok(rw) {
			return rw, m.body["pz"] == true, num(m.body["t"])
		}
	}
}

// TestConformanceRewind holds the agent to PROTOCOL.md's Rewind (19) and
// RewindRange: a despawned entity comes back under its handle, the game
// is paused at the tick, the codes are the documented ones.
func TestConformanceRewind(t *testing.T) {
	g := startGame(t, inspector.Options{RewindHz: 1000})
	addr := g.agent.Addr()
	c := dialRaw(t, addr)
	c.hello(map[string]any{"c": "conformance"})
	// "rw | map (RewindRange) | the in-memory recording a Rewind restores from"
	wantOK(t, "Subscribe summary", c.request(2, map[string]any{"w": "summary", "hz": 60}))
	rw, _, _ := rewindRange(t, c, func(rw map[string]any) bool { return num(rw["n"]) >= 2 })
	if num(rw["t"]) < num(rw["f"]) || num(rw["b"]) <= 0 || num(rw["lb"]) != 64<<20 {
		t.Fatalf("RewindRange = %v", rw)
	}
	before := num(rw["t"])
	victim := handle(g.ents[3])
	wantOK(t, "Despawn", c.request(10, map[string]any{"e": victim}))
	wantCode(t, "the despawned entity is gone", c.request(5, map[string]any{"e": victim}), "stale")
	rewindRange(t, c, func(rw map[string]any) bool { return num(rw["t"]) > before+2 })

	// "Rewind (19) ... then the game is paused at t"
	r := c.request(19, map[string]any{"t": before})
	wantOK(t, "Rewind", r)
	if !strings.Contains(str(r.body["m"]), "rewound to tick") {
		t.Errorf("Rewind's m = %q", r.body["m"])
	}
	_, paused, tick := rewindRange(t, c, func(map[string]any) bool { return true })
	for !paused || tick > before {
		_, paused, tick = rewindRange(t, c, func(map[string]any) bool { return true })
	}
	// "every entity under the same handle"
	if d := c.request(5, map[string]any{"e": victim}); d.typ != typeDetail || d.body["al"] != true {
		t.Fatalf("GetEntity of the entity despawned after the tick: %v", d.body)
	}
	// "Rewind | not-found | the tick is not in the in-memory recording"
	wantCode(t, "Rewind | not-found", c.request(19, map[string]any{"t": before + 1_000_000}), "not-found")
	ro := dialRaw(t, addr)
	ro.hello(map[string]any{"c": "conformance", "caps": []string{"read"}})
	wantCode(t, "any | read-only | it changes the world", ro.request(19, map[string]any{"t": before}), "read-only")
	wantOK(t, "Resume", c.request(12, map[string]any{}))

	// "Rewind | state | the agent keeps no in-memory recording"
	off := startGame(t, inspector.Options{RewindBytes: -1})
	oc := dialRaw(t, off.agent.Addr())
	oc.hello(map[string]any{"c": "conformance"})
	wantCode(t, "Rewind | state", oc.request(19, map[string]any{"t": 1}), "state")
}
