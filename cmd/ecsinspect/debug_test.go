package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestFindTheStarveBug is the README's walkthrough: with the demo's starve
// bug on, a watchpoint on a negative Energy no system should write stops
// the game at the write and names the system that made it; rewound 60
// ticks and stepped forward, the game makes the same write again, to the
// same entity at the same tick.
func TestFindTheStarveBug(t *testing.T) {
	sim, addr, _, on := testgame.LiveSim(t, 2000, 5)
	// Without the bug, hunger takes a frame's worth below zero at most and
	// death follows: the watchpoint stays quiet.
	if code, out, errs := cli("exec", addr, "watch", "--log", "Energy.Value<-1"); code != 0 || strings.Split(out, "\n")[0] != "1" { // its id, then what the past holds
		t.Fatalf("exec watch: %d %q %s", code, out, errs)
	}
	if code, out, _ := cli("exec", addr, "wait", "--log", "--timeout", "1500ms"); code == 0 {
		t.Fatalf("a watchpoint fired without the bug: %s", out)
	}
	if code, _, errs := cli("exec", addr, "unwatch", "1"); code != 0 {
		t.Fatalf("unwatch: %s", errs)
	}
	var since uint64
	on(func() {
		if err := sim.SetBug("starve"); err != nil {
			t.Error(err)
		}
		since = sim.World.Frame()
	})
	// The switch is the game's, not the world's: a rewind to before it
	// would replay with the bug on frames that ran without it. So the
	// rewind below goes no further back than a tick the in-memory
	// recording took after the switch (it takes a frame a second): wait
	// for one, counted in the ticks it names, not in time.
	probe, err := client.Dial(addr, "")
	if err != nil {
		t.Fatal(err)
	}
	var base uint64 // the first recorded tick with the bug on
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		sum, err := probe.Summary()
		if err != nil {
			t.Fatal(err)
		}
		if sum.Agent.Rewind != nil && sum.Agent.Rewind.To > since {
			base = sum.Agent.Rewind.To
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the in-memory recording took no frame after tick %d in 3 minutes: %+v", since, sum.Agent.Rewind)
		}
	}
	probe.Close()
	// Its id first; then, maybe, what the agent's past holds of it.
	if code, out, errs := cli("exec", addr, "watch", "Energy.Value<-1"); code != 0 || strings.Split(out, "\n")[0] != "2" {
		t.Fatalf("exec watch: %d %q %s", code, out, errs)
	}
	ui, err := client.Dial(addr, "") // a client that stays, as the UI would: the game stays paused
	if err != nil {
		t.Fatal(err)
	}
	defer ui.Close()
	// The bug strikes about every 120 frames: a deadline, not a speed
	// asserted (four busy processes beside the test slow the game to a
	// few frames a second).
	code, out, errs := cli("exec", addr, "wait", "--timeout", "3m")
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

	at := uint64(hit["tick"].(float64))
	if paused, err := ui.Summary(); err != nil || !paused.Paused || paused.Tick != at {
		t.Fatalf("the hit says tick %d; the summary: %+v %v", at, paused, err)
	}

	// The bug strikes others in those ticks too: off with the watchpoint,
	// or the replay stops at them. Back 60 ticks (the recorded tick
	// before, then the frames replayed up to it), a watchpoint on that
	// entity alone, then forward: the same write again, at the same tick.
	if code, out, errs := cli("exec", addr, "unwatch", "2"); code != 0 {
		t.Fatalf("exec unwatch: %d %q %s", code, out, errs)
	}
	back := at - 60
	if back < base {
		back = base
	}
	code, out, errs = cli("exec", addr, "rewind", strconv.FormatUint(back, 10))
	if code != 0 || !strings.Contains(out, "rewound to tick") || !strings.Contains(out, fmt.Sprintf("paused at tick %d", back)) {
		t.Fatalf("exec rewind: %d %q %s", code, out, errs)
	}
	sum, err := ui.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Paused || sum.Tick != back {
		t.Fatalf("rewound from tick %d to %d (paused %v), want %d", at, sum.Tick, sum.Paused, back)
	}
	victim := hit["entity"].(string)
	for _, cmd := range [][]string{{"watch", victim + " Energy.Value<-1"}} {
		if code, out, errs := cli(append([]string{"exec", addr}, cmd...)...); code != 0 {
			t.Fatalf("exec %v: %d %q %s", cmd, code, out, errs)
		}
	}
	if r, err := ui.Do(func(id uint32) protocol.Message { return &protocol.Step{ID: id, N: uint32(at - sum.Tick)} }); err != nil || !r.OK {
		t.Fatalf("step: %v %+v", err, r)
	}
	again, err := ui.WaitHit(3*time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	if again.Tick != at || again.Entity.String() != victim || again.By != "grazing" || !again.Paused || again.Value == nil || !again.Value.Equal(*mustValue(t, value)) {
		t.Fatalf("after the rewind the watchpoint fired at tick %d on %v by %s (%v); the first time at %d on %v (%v)", again.Tick, again.Entity, again.By, again.Value, at, victim, value)
	}
}

// mustValue turns a hit's value as exec wait printed it back into a wire
// value.
func mustValue(t *testing.T, v map[string]any) *protocol.Value {
	t.Helper()
	fields := make([]protocol.Field, 0, len(v))
	for k, x := range v {
		f, ok := x.(float64)
		if !ok {
			t.Fatalf("field %s is %T", k, x)
		}
		fields = append(fields, protocol.Field{Name: k, Value: protocol.FloatValue(f)})
	}
	out := protocol.MapValue(fields...)
	return &out
}

// TestHitsByWriterPointToTheBug is the way in without the walkthrough: a
// broad log-only watch that ordinary starvation also makes true, its hits
// grouped by writer (exec hits --by writer --json), and the narrower watch
// they point to, which only the bug's writes reach. No hit is credited to
// a system that only had Energy mutably (reproduction, death's reads).
func TestHitsByWriterPointToTheBug(t *testing.T) {
	sim, addr, _, on := testgame.LiveSim(t, 2000, 5)
	on(func() {
		if err := sim.SetBug("starve"); err != nil {
			t.Error(err)
		}
	})
	if code, out, errs := cli("exec", addr, "watch", "--log", "Energy.Value<0"); code != 0 {
		t.Fatalf("exec watch: %d %q %s", code, out, errs)
	}
	var res hitsJSON
	for deadline := time.Now().Add(60 * time.Second); ; {
		code, out, errs := cli("exec", addr, "hits", "--by", "writer", "--json")
		if code != 0 {
			t.Fatalf("exec hits: %d %s", code, errs)
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("exec hits --json is not JSON: %v\n%s", err, out)
		}
		if len(res.Suggestions) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no narrower watch suggested in 60 s; the groups: %+v", res.Groups)
		}
		time.Sleep(200 * time.Millisecond)
	}
	writers := map[string]hitGroupJSON{}
	for _, g := range res.Groups {
		writers[g.By] = g
	}
	if _, ok := writers["reproduction"]; ok {
		t.Errorf("hits credited to reproduction, which only had Energy mutably: %+v", res.Groups)
	}
	if g, ok := writers["grazing"]; !ok || g.Min == nil || *g.Min != -40 || *g.Max != -40 || g.Component != "Energy" {
		t.Fatalf("the grazing group: %+v (all %+v)", g, res.Groups)
	}
	if g, ok := writers["hunger"]; !ok || g.Min == nil || *g.Min < -1 {
		t.Fatalf("the hunger group: %+v (all %+v)", g, res.Groups)
	}
	if s := res.Suggestions[0]; s.Expr != "Energy.Value<-20" || !strings.Contains(s.Why, "only grazing's hits") {
		t.Fatalf("suggested %+v", s)
	}
}

// TestWaitIsForPausingWatchpoints: exec wait returns at a hit of a
// watchpoint that pauses the game; hits of a log-only one (which fire all
// the time here) do not end it unless asked with --log.
func TestWaitIsForPausingWatchpoints(t *testing.T) {
	_, addr, _, _ := testgame.LiveSim(t, 500, 3)
	if code, _, errs := cli("exec", addr, "watch", "--log", "Energy.Value>-1000000"); code != 0 {
		t.Fatalf("exec watch --log: %s", errs)
	}
	code, out, errs := cli("exec", addr, "wait", "--log", "--timeout", "1m")
	var hit map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &hit) != nil || hit["paused"] != false {
		t.Fatalf("wait --log: %d %s %s", code, out, errs)
	}
	if code, out, _ := cli("exec", addr, "wait", "--timeout", "1s"); code == 0 {
		t.Fatalf("wait returned at a log-only watchpoint's hit: %s", out)
	}
	// wait N waits for that watchpoint, log-only or not, while another
	// fires at every write.
	if code, _, errs := cli("exec", addr, "watch", "--log", "Energy.Value<0"); code != 0 {
		t.Fatalf("exec watch --log: %s", errs)
	}
	code, out, errs = cli("exec", addr, "wait", "--timeout", "1m", "2")
	if code != 0 || json.Unmarshal([]byte(out), &hit) != nil || hit["watch"] != float64(2) || hit["paused"] != false {
		t.Fatalf("wait 2 (a log-only watchpoint that fires now and then): %d %s %s", code, out, errs)
	}
	if code, _, errs := cli("exec", addr, "wait", "--timeout", "300ms", "7"); code == 0 || !strings.Contains(errs, "watchpoint 7 never fired") {
		t.Fatalf("wait for a watchpoint that does not fire: %d %s", code, errs)
	}
	if code, _, errs := cli("exec", addr, "watch", "Energy.Value>-1000000"); code != 0 {
		t.Fatalf("exec watch: %s", errs)
	}
	code, out, errs = cli("exec", addr, "wait", "--timeout", "1m")
	if code != 0 || json.Unmarshal([]byte(out), &hit) != nil || hit["paused"] != true {
		t.Fatalf("wait for a pausing watchpoint: %d %s %s", code, out, errs)
	}
}

// TestTheDeadVictimsWriter: with the starve bug on, an animal grazing set
// to -40 dies of it; dump --entity --json of the dead animal gives its
// Energy's writers, and never a system that only held Energy as the one
// that wrote it: the change grazing made is seen, or grazing is among the
// frame's holders.
func TestTheDeadVictimsWriter(t *testing.T) {
	sim, addr, _, on := testgame.LiveSim(t, 2000, 5)
	on(func() {
		if err := sim.SetBug("starve"); err != nil {
			t.Error(err)
		}
	})
	if code, out, errs := cli("exec", addr, "watch", "--log", "Energy.Value<-20"); code != 0 {
		t.Fatalf("exec watch: %d %q %s", code, out, errs)
	}
	code, out, errs := cli("exec", addr, "wait", "--log", "--timeout", "60s")
	if code != 0 {
		t.Fatalf("exec wait: %d %s %s", code, out, errs)
	}
	var hit watchHitJSON
	if err := json.Unmarshal([]byte(out), &hit); err != nil || hit.Entity == "" || hit.By != "grazing" {
		t.Fatalf("the hit: %+v (%v) from %s", hit, err, out)
	}
	var victim struct {
		Entity dumpEntity `json:"entity"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		code, out, errs := cli("dump", addr, "--entity", hit.Entity, "--json")
		if code != 0 {
			t.Fatalf("dump --entity: %d %s", code, errs)
		}
		if err := json.Unmarshal([]byte(out), &victim); err != nil {
			t.Fatal(err)
		}
		if !victim.Entity.Alive && victim.Entity.Died != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s, at -40, is still alive: %+v", hit.Entity, victim.Entity)
		}
	}
	w, ok := victim.Entity.Writers["Energy"]
	if !ok || w.Tick == 0 || w.Summary == "" {
		t.Fatalf("the dead %s's Energy has no writer: %+v", hit.Entity, victim.Entity.Writers)
	}
	if w.Seen && w.By != "grazing" || !w.Seen && !slices.Contains(w.Held, "grazing") {
		t.Fatalf("the dead %s's Energy (-40, grazing's): %+v", hit.Entity, w)
	}
	if !w.Seen && strings.Contains(w.Summary, "written") {
		t.Fatalf("a holder said to be the writer: %q", w.Summary)
	}
	t.Logf("%s: %s", hit.Entity, w.Summary)
}
