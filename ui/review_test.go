package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// reviewModel opens a recording in the UI model, without a terminal.
func reviewModel(t *testing.T, path string) *model {
	p, err := openPlayer(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	m := newModel(p, path)
	m.review(p, p.seekedAfter(nil).(seekedMsg).pos)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	drain(m, m.Init())
	return m
}

// drain runs a command and feeds what it yields back, synchronously.
func drain(m *model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil, tickMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			drain(m, c)
		}
	default:
		_, next := m.Update(msg)
		drain(m, next)
	}
}

func press(m *model, keys ...string) {
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		drain(m, cmd)
	}
}

func TestReviewARecording(t *testing.T) {
	path := testgame.Record(t)
	m := reviewModel(t, path)
	p := m.play
	last := len(p.rec.Frames) - 1
	if p.idx != last || !strings.Contains(m.View(), "REVIEW") {
		t.Fatalf("opens at frame %d of %d:\n%s", p.idx, last, m.View())
	}
	press(m, "<")
	if p.idx != 0 || !strings.Contains(m.View(), "frame 1/") {
		t.Errorf("g went to frame %d", p.idx)
	}
	press(m, "]", "]")
	if p.idx != 2 {
		t.Errorf("] ] went to frame %d", p.idx)
	}
	next := -1 // the first keyframe after frame 2
	for i := 3; i < len(p.rec.Frames) && next < 0; i++ {
		if p.rec.Frames[i].Keyframe {
			next = i
		}
	}
	if next < 0 {
		t.Fatalf("the recording has no keyframe after frame 2 (%d frames): } cannot be tested", len(p.rec.Frames))
	}
	press(m, "}")
	if p.idx != next {
		t.Errorf("} went to frame %d, want the next keyframe, %d", p.idx, next)
	}
	before := next - 1
	for !p.rec.Frames[before].Keyframe {
		before--
	}
	press(m, "{")
	if p.idx != before {
		t.Errorf("{ went to frame %d, want the keyframe before, %d", p.idx, before)
	}
	tick := p.rec.Frames[last/2].Tick
	press(m, "t")
	m.topPrompt().input.SetValue(strconv.FormatUint(tick, 10))
	press(m, "enter")
	if p.rec.Frames[p.idx].Tick != tick {
		t.Errorf("t %d went to tick %d", tick, p.rec.Frames[p.idx].Tick)
	}
	press(m, "3")
	if v := m.View(); !strings.Contains(v, "matches") || !strings.Contains(v, "Energy.Value") {
		t.Errorf("entities at a past tick:\n%s", v)
	}
	press(m, "enter")
	if v := m.View(); !strings.Contains(v, "Entity ") || !strings.Contains(v, "Value = ") {
		t.Errorf("detail at a past tick:\n%s", v)
	}
	press(m, "esc", "<", "c", ">", "c")
	first, lastTick := p.rec.Frames[0].Tick, p.rec.Frames[last].Tick
	if v := m.View(); !strings.Contains(v, fmt.Sprintf("tick %d → tick %d:", first, lastTick)) || !strings.Contains(v, "changed (") {
		t.Errorf("compare of the first and last ticks:\n%s", v)
	}
	press(m, "esc", " ")
	if !strings.Contains(m.View(), "cannot be changed") {
		t.Error("space on a recording did not say why it does nothing")
	}
}

func TestOpenErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.ecsrec")
	_ = os.WriteFile(bad, []byte("not a recording"), 0o644)
	for _, args := range [][]string{{}, {bad}, {filepath.Join(t.TempDir(), "missing.ecsrec")}} {
		if err := Open(args); err == nil {
			t.Errorf("open %v: no error", args)
		}
	}
	// A file cut short still opens, saying so.
	path := testgame.Record(t)
	b, _ := os.ReadFile(path)
	cut := filepath.Join(t.TempDir(), "cut.ecsrec")
	_ = os.WriteFile(cut, b[:len(b)-30], 0o644) // the index and the last frame's end gone
	m := reviewModel(t, cut)
	if !m.play.rec.Truncated || !strings.Contains(m.View(), "truncated") {
		t.Errorf("a cut file does not say it is truncated:\n%s", m.View())
	}
}

// TestReviewOverviewSaysItIsAFile: in review the Overview says the world
// is recorded, and what the file holds, not the recording agent's clients
// and traffic as if a game ran now.
func TestReviewOverviewSaysItIsAFile(t *testing.T) {
	path := testgame.Record(t)
	m := reviewModel(t, path)
	press(m, "1")
	v := m.View()
	for _, want := range []string{"recorded", "Recording", path, " frames (50 a second)"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the review's Overview lacks %q:\n%s", want, v)
		}
	}
	for _, not := range []string{"running", "clients ", "frames sent"} {
		if strings.Contains(v, not) {
			t.Fatalf("the review's Overview says %q:\n%s", not, v)
		}
	}
}

// gappedRecording is a recording of every frame (ticks 100 on) with one
// gap: the five ticks before its ninth frame were not recorded, and that
// frame says why.
func gappedRecording(t *testing.T) string {
	src, err := recording.OpenFrames(testgame.Record(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), "gapped.ecsrec")
	w, err := recording.CreateRecording(path, recording.RecordingHeader{Game: "gapped"})
	if err != nil {
		t.Fatal(err)
	}
	tick := uint64(100)
	for i := range src.Frames {
		m, err := src.Message(i)
		if err != nil {
			t.Fatal(err)
		}
		f := *m.(*protocol.WorldFrame)
		if i == 8 {
			tick += 5
			f.Skipped, f.SkipWhy = 5, "the test left them out"
		}
		f.Tick = tick
		if err := w.Write(tick, time.Now(), src.Frames[i].Keyframe, &f); err != nil {
			t.Fatal(err)
		}
		tick++
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReviewShowsItsGaps: the timeline marks a gap, stepping across it
// says which ticks were not recorded and why, a jump over it says how many
// were skipped, and a comparison across it names the missing ticks.
func TestReviewShowsItsGaps(t *testing.T) {
	m := reviewModel(t, gappedRecording(t))
	if v := m.View(); !strings.Contains(v, "×gap") || !strings.Contains(v, "×") {
		t.Fatalf("the timeline does not mark the gap:\n%s", v)
	}
	press(m, "<")
	for range 8 {
		press(m, "]")
	}
	if m.play.idx != 8 || !strings.Contains(m.flashText, "crossed a gap: ticks 108-112 were not recorded (the test left them out)") {
		t.Fatalf("stepping over the gap to frame %d said %q", m.play.idx, m.flashText)
	}
	press(m, "<", ">")
	if !strings.Contains(m.flashText, "crossed 1 gap: 5 ticks between were not recorded") {
		t.Fatalf("jumping over the gap said %q", m.flashText)
	}
	press(m, "<", "c", ">", "c")
	if v := m.View(); !strings.Contains(v, "5 ticks between them were not recorded, in 1 gap") {
		t.Fatalf("the comparison across the gap:\n%s", v)
	}
}

// TestReviewFindsTheFirstTick: F with a query reads every frame once and
// goes to the first tick it holds at, saying so; a query that never
// holds says that and stays.
func TestReviewFindsTheFirstTick(t *testing.T) {
	path := testgame.Record(t)
	m := reviewModel(t, path)
	p := m.play
	rec, err := recording.OpenFrames(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	const expr = "Energy.Value>55"
	want, err := recording.NewReplay(rec).ScanQuery(expr)
	if err != nil || !want.Held {
		t.Fatalf("the test recording: %+v %v", want, err)
	}
	press(m, ">", "F")
	m.topPrompt().input.SetValue(expr)
	press(m, "enter")
	if got := p.rec.Frames[p.idx].Tick; got != want.First {
		t.Errorf("F %s went to tick %d, want %d", expr, got, want.First)
	}
	if v := m.View(); !strings.Contains(v, fmt.Sprintf("first holds at tick %d", want.First)) {
		t.Errorf("F did not say where:\n%s", v)
	}
	at := p.idx
	press(m, "F")
	m.topPrompt().input.SetValue("Energy.Value>1e30")
	press(m, "enter")
	if v := m.View(); p.idx != at || !strings.Contains(v, "never holds") {
		t.Errorf("a query that never holds: frame %d (was %d)\n%s", p.idx, at, v)
	}
}
