package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/demo/ecosystem"
	"github.com/ecsinspect/ecsinspect/inspector"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/internal/testpace"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// harness runs the demo world with an agent and a UI model fed by a real
// session, without a terminal: the test plays the program's event loop.
type harness struct {
	t     *testing.T
	m     *model
	msgs  chan tea.Msg
	agent *inspector.Agent
}

func newHarness(t *testing.T, width, height int) *harness {
	return newHarnessWith(t, width, height, "")
}

// newHarnessWith is newHarness with one of the demo's planted bugs on
// ("" for none).
func newHarnessWith(t *testing.T, width, height int, bug string) *harness {
	// A smaller world at a gentler pace under the race detector, which
	// slows every frame many times over.
	n, period := 2000, 5*time.Millisecond
	if testpace.Race {
		n, period = 600, 20*time.Millisecond
	}
	d := ecosystem.New(n, 3)
	if bug != "" {
		if err := d.SetBug(bug); err != nil {
			t.Fatal(err)
		}
	}
	agent := inspector.New(d.World, inspector.Options{Addr: "127.0.0.1:0", Game: "ecosystem", Schedule: d.Schedule})
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() }) // cleanups run last first: the agent closes after the game stops
	testgame.Loop(t, period, func() { d.Step(); agent.Sync() })
	h := newHarnessAt(t, agent.Addr(), width, height)
	h.agent = agent
	return h
}

// newHarnessAt is the UI attached to the agent at addr.
func newHarnessAt(t *testing.T, addr string, width, height int) *harness {
	h := &harness{t: t, msgs: make(chan tea.Msg, 1024)}
	sess := newSession(client.GameAt(addr, ""))
	sess.send = func(m tea.Msg) { h.msgs <- m }
	h.m = newModel(sess, addr)
	go sess.run()
	t.Cleanup(sess.close)
	h.update(tea.WindowSizeMsg{Width: width, Height: height})
	h.run(h.m.Init())
	return h
}

// run executes a command and everything it leads to, as the program would.
func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			if batch, ok := msg.(tea.BatchMsg); ok {
				for _, c := range batch {
					h.run(c)
				}
				return
			}
			if _, isTick := msg.(tickMsg); !isTick {
				h.msgs <- msg
			}
		}
	}()
}

func (h *harness) update(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// namedKeys are the keys tests name rather than type.
var namedKeys = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
	"up": tea.KeyUp, "down": tea.KeyDown, "backspace": tea.KeyBackspace, "pgdown": tea.KeyPgDown,
}

// keyMsg is the key event a person's key press makes.
func keyMsg(k string) tea.KeyMsg {
	if k == "space" {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	if kt, ok := namedKeys[k]; ok {
		return tea.KeyMsg{Type: kt}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func (h *harness) keys(s ...string) {
	for _, k := range s {
		h.update(keyMsg(k))
	}
}

// waitFor feeds messages to the model until its view shows want, for up
// to 15 s.
func (h *harness) waitFor(want string) string {
	h.t.Helper()
	return h.waitForLong(want, 15*time.Second)
}

func checkFits(t *testing.T, view string, width, height int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Errorf("%d lines on a %d-row terminal", len(lines), height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d cells wide on a %d-column terminal: %q", i, w, width, l)
		}
	}
}

func TestUIViewsAtTwoSizes(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		h := newHarness(t, size[0], size[1])
		checkFits(t, h.waitFor("entities"), size[0], size[1])
		// The journal is checked by its head, drawn once it holds entries:
		// which ops fill the newest rows depends on the game's pace.
		for key, want := range map[string]string{"2": "components (enter lists them)", "3": "matches", "4": "hunting", "5": "Born", "6": "op       entity", "7": "Clock", "1": "Generations"} {
			h.keys(key)
			checkFits(t, h.waitFor(want), size[0], size[1])
		}
		if !strings.Contains(h.m.View(), "connected") {
			t.Error("status bar does not say connected")
		}
	}
}

func TestUIFilterDetailEditPause(t *testing.T) {
	h := newHarness(t, 160, 48)
	h.waitFor("entities")
	h.keys("/", "E", "n", "e", "r", "g", "y", ".", "V", "a", "l", "u", "e", "<")
	if v := h.m.View(); !strings.Contains(v, "column") {
		t.Errorf("an unfinished query shows no error:\n%s", v)
	}
	h.keys("2", "0", "0", "enter")
	h.waitFor("Energy.Value<200 —") // the page itself, not just its title
	h.keys("enter")
	h.waitFor("archetype")
	h.waitFor("Value = ")
	h.keys("space") // paused: the simulation does not move what we set
	h.waitFor("PAUSED")
	// Move to a field and set it.
	for range 2 {
		h.keys("j")
	}
	h.keys("e")
	if h.m.topPrompt() == nil {
		t.Fatalf("e did not start an edit on line %d:\n%s", h.m.detail.line, h.m.View())
	}
	h.m.topPrompt().input.SetValue("500")
	h.keys("enter")
	for deadline := time.Now().Add(5 * time.Second); !strings.HasPrefix(h.m.flashText, "set ") && time.Now().Before(deadline); {
		h.waitFor(": ok")
		h.settle()
	}
	// The game holds it: asked by another client, not read off the screen.
	path := strings.TrimSuffix(strings.TrimPrefix(h.m.flashText, "set "), ": ok")
	one, err := client.Dial(h.agent.Addr(), "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := one.Entity(h.m.detail.detail.Entity)
	one.Close()
	if err != nil {
		t.Fatal(err)
	}
	comp, field, _ := strings.Cut(path, ".")
	found := false
	for _, c := range d.Components {
		if v, ok := c.Value.Get(field); c.Component == comp && ok && v.Float() == 500 {
			found = true
		}
	}
	if !found {
		t.Fatalf("the edit of %s did not reach the game: %+v", path, d.Components)
	}
	h.keys("esc")
	h.keys(".")
	h.waitFor("step: ok")
	h.keys("space")
	h.waitFor("resume: ok")
}

func TestUIPaletteRunsExecCommands(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.waitFor("entities")
	h.keys(":")
	h.m.topPrompt().input.SetValue(`set 0v1 Energy.Value=77`)
	h.keys("enter")
	h.waitFor("set Energy.Value: ok")
	h.keys(":")
	h.m.topPrompt().input.SetValue(`add 0v1 'Fleeing={"From":"1v1"}'`)
	h.keys("enter")
	h.waitFor("add Fleeing: ok")
	h.keys(":")
	h.m.topPrompt().input.SetValue(`frobnicate 1`)
	h.keys("enter")
	h.waitFor(`unknown command "frobnicate"`)
}

func TestSplitWords(t *testing.T) {
	got := client.SplitWords(`add 42v3 'Health={"HP": 10}'  spawn "a b"`)
	want := []string{"add", "42v3", `Health={"HP": 10}`, "spawn", "a b"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("splitWords = %q", got)
	}
}

func TestUIRecords(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	h := newHarness(t, 120, 30)
	h.waitFor("entities")
	h.keys("r")
	h.waitFor("● REC")
	for range 5 { // a few summaries arrive
		h.waitFor("tick")
		select {
		case msg := <-h.msgs:
			h.update(msg)
		case <-time.After(time.Second):
		}
	}
	h.waitFor("/min)") // after a second, what the recording grows a minute
	h.keys("r")
	h.waitFor("recorded")
	files, _ := filepath.Glob(filepath.Join(dir, "*.ecsrec"))
	if len(files) != 1 {
		t.Fatalf("files = %v", files)
	}
	rec, err := recording.OpenRecording(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if len(rec.Frames) == 0 || rec.Truncated {
		t.Errorf("recorded %d frames, truncated %v", len(rec.Frames), rec.Truncated)
	}
}

// typeText types s as a person would, one key at a time.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// submit types s and presses enter: a prompt's or a form field's answer.
func (h *harness) submit(s string) {
	h.typeText(s)
	h.keys("enter")
}

func TestUISpawnAndAddForms(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.waitFor("entities")
	h.keys("space") // paused, nothing else changes what we read back
	h.waitFor("PAUSED")

	h.keys("n")
	h.waitFor("Spawn an entity")
	h.submit("Energ")
	h.waitFor("Value")
	h.submit("abc")
	h.waitFor(`Energy.Value: wants a number, got "abc"`) // nothing was sent
	for range 3 {
		h.keys("backspace")
	}
	h.submit("5.5")
	v := h.waitFor("spawn Energy: ok (")
	_, after, _ := strings.Cut(v, "spawn Energy: ok (")
	id, err := protocol.ParseEntityID(strings.SplitN(after, ")", 2)[0])
	if err != nil {
		t.Fatalf("no entity in the reply: %v\n%s", err, v)
	}

	h.run(h.m.openEntity(id))
	h.waitFor("Value = 5.5")
	h.keys("a")
	h.waitFor("Add a component to " + id.String())
	if strings.Contains(h.m.View(), " Energy ") {
		t.Error("the add form offers a component the entity already has")
	}
	h.submit("Fle")
	h.waitFor("From")
	h.submit("9x")
	h.waitFor("wants an entity like 42v3")
	h.keys("backspace", "backspace")
	h.submit(id.String())
	h.waitFor("add Fleeing to " + id.String() + ": ok")
	h.waitFor("From = " + id.String())

	one, err := client.Dial(h.agent.Addr(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	d, err := one.Entity(id)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range d.Components {
		got[c.Component] = c.Value.String()
	}
	if !strings.Contains(got["Energy"], "5.5") || got["Fleeing"] == "" {
		t.Errorf("the game holds %v", got)
	}
}
