package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"

	"github.com/ecsinspect/ecsinspect/inspector"
)

// liveDemo runs the demo world with an agent for the headless commands.
func liveDemo(t *testing.T) (string, *inspector.Agent, func(func())) {
	return testgame.Live(t, 1000, 5)
}

// systemsOfTheDemo is how many systems the demo schedules.
var systemsOfTheDemo = len(ecosystem.New(100, 1).Schedule.Systems())

func cli(args ...string) (int, string, string) {
	// --creds and --ca set the process's environment for the broker
	// connection, as they should in a one-command process; here many
	// commands share one process, so each gets the environment back.
	for _, name := range []string{fleet.CAEnv, fleet.CredsEnv} {
		if was, ok := os.LookupEnv(name); ok {
			defer os.Setenv(name, was)
		} else {
			defer os.Unsetenv(name)
		}
	}
	var out, errs bytes.Buffer
	code := run(args, &out, &errs)
	return code, out.String(), errs.String()
}

func TestExecAndDump(t *testing.T) {
	addr, _, _ := liveDemo(t)
	// exec's pause is held: the game stays paused after exec leaves, with
	// no client, until a resume. 0v1 is a pack leader: the simulation never makes a predator flee, so
	// the Fleeing we give it stays as we set it.
	for _, c := range [][]string{{"pause"}, {"add", "0v1", `Fleeing={"From":"7v1"}`}, {"set", "0v1", "Fleeing.From=9v1"}} {
		if code, out, errs := cli(append([]string{"exec", addr}, c...)...); code != 0 {
			t.Fatalf("exec %v: %d %s %s", c, code, out, errs)
		}
	}
	code, out, errs := cli("dump", addr, "--entity", "0v1", "--query", "Fleeing Predator", "--json")
	if code != 0 {
		t.Fatalf("dump: %s", errs)
	}
	var res dumpResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("dump --json is not JSON: %v\n%s", err, out)
	}
	if res.Entities == 0 || len(res.Archetypes) == 0 || len(res.Systems) != systemsOfTheDemo {
		t.Errorf("dump = %+v", res)
	}
	f, _ := res.Entity.Components["Fleeing"].(map[string]any)
	if res.Entity == nil || !res.Entity.Alive || f["From"] != "9v1" { // a handle field prints as the handle
		t.Errorf("the edit did not reach the game: %+v", res.Entity)
	}
	// Position is float32: its numbers print as the float32 they are
	// (870.90656), not widened to float64 (870.9065551757812).
	xs := regexp.MustCompile(`"[XY]": (-?[0-9.]+)`).FindAllStringSubmatch(out, -1)
	for _, x := range xs {
		if digits := strings.Count(strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(x[1], "-"), ".", ""), "0"), "") - 1; digits > 9 {
			t.Errorf("a float32 printed with %d digits: %s", digits, x[0])
		}
	}
	if len(xs) == 0 {
		t.Errorf("no Position in the dump:\n%s", out)
	}
	if res.Matches == nil || res.Matches.Total != 1 || res.Matches.Entities[0].Entity != "0v1" {
		t.Errorf("matches = %+v", res.Matches)
	}
	o, err := client.Dial(addr, "")
	if err != nil {
		t.Fatal(err)
	}
	first, err := o.Summary()
	if err != nil || !first.Paused {
		t.Fatalf("after exec pause left, the game runs: %+v %v", first, err)
	}
	o.Close()
	time.Sleep(100 * time.Millisecond) // frames would run here if the pause had ended with exec
	if o, err = client.Dial(addr, ""); err != nil {
		t.Fatal(err)
	}
	if s, err := o.Summary(); err != nil || !s.Paused || s.Tick != first.Tick {
		t.Fatalf("exec's pause did not hold with no client: tick %d then %+v %v", first.Tick, s, err)
	}
	o.Close()
	if code, _, errs := cli("exec", addr, "resume"); code != 0 {
		t.Fatalf("exec resume: %s", errs)
	}
	waitRunning(t, addr)
	if code, _, errs := cli("exec", addr, "step", "2"); code == 0 || !strings.Contains(errs, "running: pause it first") {
		t.Fatalf("step on a running game should be refused: %d %s", code, errs)
	}
	// A pause lasts while its client stays: hold one, then step.
	holder, err := client.Dial(addr, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Do(func(id uint32) protocol.Message { return &protocol.Pause{ID: id} }); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli("exec", addr, "step", "2"); code != 0 {
		t.Fatalf("step: %s", errs)
	}
	holder.Close()
	code, out, _ = cli("exec", addr, "spawn", `Position={"X":1,"Y":2}`, "Velocity")
	if code != 0 || !strings.Contains(out, "v") {
		t.Errorf("spawn: %d %q", code, out)
	}
	// Failures exit non-zero with the agent's words.
	for c, want := range map[string]string{
		"set 99999v1 Energy.Value=1": "never issued",
		"set 0v1 Energy.Nope=1":      "has no field Nope",
		"set 0v1 Energy.Value=abc":   `wants a number, got "abc"`,
		"add 0v1 Armor":              "no component named Armor",
		`add 0v1 Energy={"Value":`:   "not a JSON object",
		"frobnicate":                 "unknown command",
		"despawn 7":                  "not an entity",
	} {
		code, _, errs := cli(append([]string{"exec", addr}, strings.Fields(c)...)...)
		if code == 0 || !strings.Contains(errs, want) {
			t.Errorf("exec %s: exit %d, %q; want %q", c, code, errs, want)
		}
	}
	cli("exec", addr, "resume")
	if code, _, errs := cli("dump", "127.0.0.1:1"); code == 0 || !strings.Contains(errs, "cannot reach an agent") {
		t.Errorf("unreachable address: %d %q", code, errs)
	}
}

func TestDumpRecording(t *testing.T) {
	path := testgame.Record(t)
	code, out, errs := cli("dump", path, "--json", "--entity", "1v1")
	if code != 0 {
		t.Fatalf("dump file: %s", errs)
	}
	var res dumpResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Frames < 3 || res.FirstTick == nil || res.LastTick == nil || *res.LastTick <= *res.FirstTick || res.Tick != *res.LastTick || res.Entities == 0 {
		t.Errorf("recording dump = frames %d ticks %v..%v tick %d", res.Frames, res.FirstTick, res.LastTick, res.Tick)
	}
	if code, _, errs := cli("dump", filepath.Join(t.TempDir(), "nope.ecsrec")); code == 0 || errs == "" {
		t.Error("a missing recording dumped")
	}
	// Resources as the recording kept them: whole, in the JSON and by path.
	if grid, ok := res.Resources["Grid"].(map[string]any); !ok || len(grid["Grass"].([]any)) < 2 {
		t.Errorf("a recording's dump has no Grid resource: %v", res.Resources)
	}
	code, out, errs = cli("dump", path, "--resource", "Grid.Grass[2]")
	if code != 0 || !strings.Contains(out, "resource Grid.Grass[2] (float float32)") {
		t.Errorf("--resource Grid.Grass[2] of a recording: %d\n%s%s", code, out, errs)
	}
	// A pack member's parent prints as a handle, 40v1, in JSON and text.
	code, out, errs = cli("dump", path, "--json", "--query", "ChildOf", "--limit", "1")
	var kids dumpResult
	if err := json.Unmarshal([]byte(out), &kids); code != 0 || err != nil || kids.Matches == nil || len(kids.Matches.Entities) != 1 {
		t.Fatalf("dump --query ChildOf: %d %v %s", code, err, errs)
	}
	parent, _ := kids.Matches.Entities[0].Components["ChildOf"].(map[string]any)["Parent"].(string)
	if _, err := protocol.ParseEntityID(parent); err != nil || !strings.Contains(parent, "v") {
		t.Fatalf("ChildOf's parent printed as %v, want a handle like 40v1", kids.Matches.Entities[0].Components["ChildOf"])
	}
	if _, out, _ = cli("dump", path, "--query", "ChildOf", "--limit", "1"); !strings.Contains(out, `{"Parent":"`+parent+`"}`) {
		t.Fatalf("the text dump does not print the parent as %s:\n%s", parent, out)
	}
}

func TestRecordCommand(t *testing.T) {
	addr, _, _ := liveDemo(t)
	path := filepath.Join(t.TempDir(), "rec.ecsrec")
	// Five frames at 50 Hz; the duration only guards against a hang.
	code, out, errs := cli("record", addr, "-o", path, "--frames", "5", "--hz", "50", "--duration", "1m")
	if code != 0 || !strings.Contains(out, "frames") {
		t.Fatalf("record: %d %q %q", code, out, errs)
	}
	code, out, errs = cli("dump", path, "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	var res dumpResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Frames != 5 || *res.LastTick <= *res.FirstTick {
		t.Errorf("recorded %d frames, ticks %d..%d; want 5 frames, time moving", res.Frames, *res.FirstTick, *res.LastTick)
	}
	if code, _, errs := cli("record", addr, "-o", path, "--frames", "-1"); code == 0 || !strings.Contains(errs, "--frames -1") {
		t.Errorf("record --frames -1: %d %q", code, errs)
	}
	if code, _, errs := cli("record", addr); code == 0 || !strings.Contains(errs, "-o FILE") {
		t.Errorf("record without -o: %q", errs)
	}
}

// waitRunning waits until the game at addr is not paused.
func waitRunning(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		o, err := client.Dial(addr, "")
		if err != nil {
			t.Fatal(err)
		}
		s, err := o.Summary()
		o.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !s.Paused {
			return
		}
	}
	t.Fatal("the game stayed paused")
}

// TestExecWatchesListsAndKeeps: a log-only watchpoint set by exec stays
// after exec leaves (it is set with keep), and exec watches lists it,
// with who set it, in text and JSON.
func TestExecWatchesListsAndKeeps(t *testing.T) {
	addr, _, _ := liveDemo(t)
	code, out, errs := cli("exec", addr, "watch", "--log", "Energy.Value<-1000")
	if code != 0 {
		t.Fatalf("exec watch: %d %s %s", code, out, errs)
	}
	id := strings.Split(out, "\n")[0] // its id, then what the past holds, if anything
	code, out, errs = cli("exec", addr, "watches", "--json")
	if code != 0 {
		t.Fatalf("exec watches: %d %s", code, errs)
	}
	var list []watchJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("exec watches --json is not JSON: %v\n%s", err, out)
	}
	if len(list) != 1 || fmt.Sprint(list[0].ID) != id || !list[0].Keep || !list[0].Log || list[0].Owner == 0 || list[0].Expr != "Energy.Value<-1000" {
		t.Fatalf("after exec left, the agent lists %+v", list)
	}
	code, out, _ = cli("exec", addr, "watches")
	if code != 0 || !strings.Contains(out, "logs") || !strings.Contains(out, "Energy.Value<-1000") {
		t.Fatalf("exec watches: %d %q", code, out)
	}
}

// TestDumpDiffSaysWhatItCompares: dump --diff between a recorded tick and
// one the recording (at a rate) does not hold says which state stands for
// it, in JSON (to_as_of) and in text; handles print as 40v1.
func TestDumpDiffSaysWhatItCompares(t *testing.T) {
	path := testgame.Record(t)
	rec, err := recording.OpenRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	first, last := rec.Frames[0].Tick, rec.Frames[len(rec.Frames)-1].Tick
	missing := uint64(0)
	for i := 1; i < len(rec.Frames) && missing == 0; i++ {
		if rec.Frames[i].Tick > rec.Frames[i-1].Tick+1 {
			missing = rec.Frames[i-1].Tick + 1
		}
	}
	rec.Close()
	if missing == 0 {
		t.Skipf("the recording holds every tick from %d to %d", first, last)
	}
	code, out, errs := cli("dump", path, "--diff", fmt.Sprint(first), fmt.Sprint(missing), "--json")
	if code != 0 {
		t.Fatalf("dump --diff: %d %s", code, errs)
	}
	var d struct {
		From, To uint64
		Spawned  []string `json:"spawned"`
		ToAsOf   string   `json:"to_as_of"`
		FromAsOf string   `json:"from_as_of"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("dump --diff --json: %v\n%s", err, out)
	}
	if d.FromAsOf != "" || !strings.Contains(d.ToAsOf, fmt.Sprintf("tick %d was not recorded", missing)) {
		t.Fatalf("from_as_of %q, to_as_of %q", d.FromAsOf, d.ToAsOf)
	}
	for _, e := range d.Spawned {
		if !regexp.MustCompile(`^[0-9]+v[0-9]+$`).MatchString(e) {
			t.Fatalf("a spawned handle prints as %q", e)
		}
	}
	if code, out, _ := cli("dump", path, "--diff", fmt.Sprint(first), fmt.Sprint(missing)); code != 0 || !strings.Contains(out, "note: tick") {
		t.Fatalf("dump --diff text: %d %s", code, out)
	}
}

// TestDumpDeadEntity: dump of a handle the game despawned answers at once
// with its last state, marked dead, saying who despawned it; in JSON too.
func TestDumpDeadEntity(t *testing.T) {
	addr, _, _ := liveDemo(t)
	if code, out, errs := cli("exec", addr, "despawn", "3v1"); code != 0 {
		t.Fatalf("exec despawn: %d %s %s", code, out, errs)
	}
	code, out, errs := cli("dump", addr, "--entity", "3v1")
	if code != 0 || !strings.Contains(out, "DEAD: its last state, as its despawn at tick") || !strings.Contains(out, "by client") || !strings.Contains(out, "Position{") {
		t.Fatalf("dump of the dead handle: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = cli("dump", addr, "--entity", "3v1", "--json")
	var res dumpResult
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("dump --json: %d %v %s", code, err, errs)
	}
	if e := res.Entity; e == nil || e.Alive || e.Died == nil || !strings.Contains(e.Died.By, "client") || e.Components["Position"] == nil {
		t.Fatalf("dump --json of the dead handle: %+v", res.Entity)
	}
}

// TestDumpFirstAndHistory: dump FILE --first QUERY says when a query
// first and last holds over the file, with a command to look; --history
// lists an entity's changes; both in JSON; a live address is refused
// with what to do.
func TestDumpFirstAndHistory(t *testing.T) {
	path := testgame.Record(t)
	code, out, errs := cli("dump", path, "--first", "Energy")
	if code != 0 || !strings.Contains(out, "first holds at tick") || !strings.Contains(out, "look: ecsinspect dump") {
		t.Fatalf("--first: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = cli("dump", path, "--first", "Energy.Value<-1000000")
	if code != 0 || !strings.Contains(out, "never holds") {
		t.Fatalf("--first of a query that never holds: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = cli("dump", path, "--history", "1v1", "--json")
	var res struct {
		Entity  string
		History []struct{ What string }
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("--history --json: %d %v %s", code, err, errs)
	}
	if res.Entity != "1v1" || len(res.History) < 2 || res.History[0].What != "alive" {
		t.Fatalf("--history of 1v1: %+v", res)
	}
	if code, _, errs := cli("dump", path, "--first", "Energy.Nope>1"); code == 0 || !strings.Contains(errs, "Nope") {
		t.Fatalf("a bad query: %d %s", code, errs)
	}
	addr, _, _ := liveDemo(t)
	if code, _, errs := cli("dump", addr, "--first", "Energy"); code == 0 || !strings.Contains(errs, "record the game first") {
		t.Fatalf("--first on a live game: %d %s", code, errs)
	}
}

// TestRecordKept: record --keep writes a flight recording, a directory of
// segments that dump and open read as one, shows what the run costs a
// minute, and refuses --frames beside it and a directory that holds a
// recording already.
func TestRecordKept(t *testing.T) {
	addr, _, _ := liveDemo(t)
	dir := filepath.Join(t.TempDir(), "flight.ecsrec")
	code, out, errs := cli("record", addr, "-o", dir, "--keep", "8MB", "--duration", "1500ms")
	if code != 0 || !strings.Contains(out, "a minute)") || !strings.Contains(out, "keeping the last") {
		t.Fatalf("record --keep: %d %q %q", code, out, errs)
	}
	code, out, errs = cli("dump", dir, "--json")
	var res dumpResult
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
		t.Fatalf("dump of the flight recording: %d %v %s", code, err, errs)
	}
	if res.Frames < 2 || *res.LastTick <= *res.FirstTick || res.Entities == 0 {
		t.Errorf("the flight recording: %d frames, ticks %d..%d, %d entities", res.Frames, *res.FirstTick, *res.LastTick, res.Entities)
	}
	if code, _, errs := cli("record", addr, "-o", dir, "--keep", "8MB", "--duration", "1s"); code == 0 || !strings.Contains(errs, "holds a recording already") {
		t.Errorf("record --keep into a used directory: %d %q", code, errs)
	}
	if code, _, errs := cli("record", addr, "-o", dir+"2", "--keep", "8MB", "--frames", "5"); code == 0 || !strings.Contains(errs, "no --frames") {
		t.Errorf("record --keep --frames: %d %q", code, errs)
	}
	if code, _, errs := cli("record", addr, "-o", dir+"3", "--keep", "forever"); code == 0 || !strings.Contains(errs, "want a duration") {
		t.Errorf("record --keep forever: %d %q", code, errs)
	}
}
