package conformance

import (
	"fmt"
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
	// "unless the agent kept its last state: then by a Detail with al
	// false, dd (who despawned it, and in which frame), cs and p as the
	// despawn found them"
	if d := c.request(5, map[string]any{"e": victim}); d.typ != 69 || d.body["al"] != false || d.body["dd"] == nil || !strings.Contains(str(d.body["dd"].(map[string]any)["by"]), "conformance") || d.body["cs"] == nil {
		t.Errorf("GetEntity of the despawned entity: want a Detail of its last state, got type %d %v", d.typ, d.body)
	}
	wantCode(t, "a handle never issued is stale", c.request(5, map[string]any{"e": victim + 5<<32}), "stale")
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

	// "With x set, the agent plays those frames itself: from the recorded
	// tick it runs the game on to t and pauses there"
	slow := startGame(t, inspector.Options{RewindHz: 4})
	sc := dialRaw(t, slow.agent.Addr())
	sc.hello(map[string]any{"c": "conformance"})
	wantOK(t, "Subscribe summary", sc.request(2, map[string]any{"w": "summary", "hz": 60}))
	rw, _, _ = rewindRange(t, sc, func(rw map[string]any) bool { return num(rw["n"]) >= 2 })
	ask := num(rw["t"]) - 1 // between two recorded ticks
	r = sc.request(19, map[string]any{"t": ask, "x": true})
	wantOK(t, "Rewind with x", r)
	if m := str(r.body["m"]); !strings.Contains(m, "replaying") {
		t.Errorf("Rewind with x between recorded ticks: m = %q", m)
	}
	_, paused, tick = rewindRange(t, sc, func(map[string]any) bool { return true })
	for !paused {
		_, paused, tick = rewindRange(t, sc, func(map[string]any) bool { return true })
	}
	if tick != ask {
		t.Errorf("Rewind with x to %d paused at %d", ask, tick)
	}

	// "Rewind | state | the agent keeps no in-memory recording"
	off := startGame(t, inspector.Options{RewindBytes: -1})
	oc := dialRaw(t, off.agent.Addr())
	oc.hello(map[string]any{"c": "conformance"})
	wantCode(t, "Rewind | state", oc.request(19, map[string]any{"t": 1}), "state")
}

// TestConformanceSeries holds the agent to PROTOCOL.md's Series (75): a
// series subscription's samples, the forms of q and their codes.
func TestConformanceSeries(t *testing.T) {
	g := startGame(t, inspector.Options{})
	c := dialRaw(t, g.agent.Addr())
	c.hello(map[string]any{"c": "conformance"})
	// The game has 150 entities with Pos; every other one has HP = its index.
	sample := func(q string) map[string]any {
		t.Helper()
		r := c.request(2, map[string]any{"w": "series", "q": q, "hz": 30})
		wantOK(t, "Subscribe series "+q, r)
		return nextOf(t, c, 75, int(c.id)).body
	}
	// "count Herbivore | how many entities a query matches"
	if s := sample("count HP"); num(s["v"]) != 75 || num(s["n"]) != 75 || num(s["t"]) < 1 {
		t.Errorf("count HP: %v", s)
	}
	// "mean Energy.Value Herbivore | min, mean, max or sum of a field over a query's matches"
	if s := sample("max HP.HP HP.HP<100"); num(s["v"]) != 98 || num(s["n"]) != 50 {
		t.Errorf("max HP.HP HP.HP<100: %v", s)
	}
	// "42v3 Energy.Value | one entity's numeric field"
	if s := sample(strconvEntity(handle(g.ents[4])) + " HP.HP"); num(s["v"]) != 4 || num(s["n"]) != 1 {
		t.Errorf("one entity's field: %v", s)
	}
	// "v ... absent when there is none"
	if s := sample("min HP.HP HP.HP>1000"); s["v"] != nil || num(s["n"]) != 0 {
		t.Errorf("a min over nothing: %v", s)
	}
	wantCode(t, "Subscribe series | bad-value | none of the forms", c.request(2, map[string]any{"w": "series", "q": "median HP.HP"}), "bad-value")
	wantCode(t, "Subscribe series | bad-query | a field that does not exist", c.request(2, map[string]any{"w": "series", "q": "mean HP.Nope"}), "bad-query")
}

// strconvEntity writes a packed handle as 42v3.
func strconvEntity(h uint64) string {
	return fmt.Sprintf("%dv%d", uint32(h), h>>32)
}
