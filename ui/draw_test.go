package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestTicksRedrawOnlyWhatSummariesDoNot: a tick while summaries come keeps
// the screen drawn at the last message (the next summary redraws it); a
// tick with no summary for longer than its period (a paused stream, a
// review) redraws it, so a flash goes when its time is up; any other
// message redraws it at once.
func TestTicksRedrawOnlyWhatSummariesDoNot(t *testing.T) {
	m := fixtureModel(&fakeSource{})
	m.flash("hello there", false)
	m.Update(tickMsg(time.Now()))
	if !strings.Contains(m.View(), "hello there") {
		t.Fatalf("the flash is not on the screen:\n%s", m.View())
	}
	m.flashAt = time.Now().Add(-5 * time.Second) // its time is up
	m.summaryAt = time.Now()
	m.Update(tickMsg(time.Now()))
	if !strings.Contains(m.View(), "hello there") {
		t.Fatal("a tick right after a summary redrew the screen: the summaries' redraws do")
	}
	m.summaryAt = time.Now().Add(-time.Second)
	m.Update(tickMsg(time.Now()))
	if strings.Contains(m.View(), "hello there") {
		t.Fatal("a tick with no summary for a second left an expired flash on the screen")
	}
	m.flash("again", false)
	m.summaryAt = time.Now()
	m.Update(connMsg{state: stateConnected})
	if !strings.Contains(m.View(), "again") {
		t.Fatal("a message other than a tick did not redraw the screen")
	}
}

// TestAHitDoesNotHideAnAnswer: a log-only watchpoint's hit right after an
// answer the person asked for (a rewind's replay fires hits at once)
// leaves the answer on the bottom line for its first moments, and takes
// the line after them; a hit after a hit takes it at once, and a hit that
// paused the game at once whatever came before.
func TestAHitDoesNotHideAnAnswer(t *testing.T) {
	m := fixtureModel(&fakeSource{})
	paused := false
	hit := func(text string) {
		m.Update(watchHitMsg{&protocol.WatchHit{Watch: 1, Tick: 9, Text: text, Paused: paused}})
	}
	m.flash("rewind: rewound to tick 699", false)
	hit("Energy.Value<0: first")
	if v := m.View(); !strings.Contains(v, "rewound to tick 699") || strings.Contains(v, "first") {
		t.Fatalf("a hit hid the rewind's answer at once:\n%s", v)
	}
	m.flashAt = time.Now().Add(-flashHold)
	hit("Energy.Value<0: second")
	if !strings.Contains(m.View(), "second") {
		t.Fatal("a hit after the answer's moments did not show")
	}
	hit("Energy.Value<0: third")
	if !strings.Contains(m.View(), "third") {
		t.Fatal("a hit after a hit did not take its place")
	}
	m.flash("watch 2: set", false)
	paused = true
	hit("Energy.Value<-20: stopped")
	if !strings.Contains(m.View(), "stopped") {
		t.Fatal("a hit that paused the game waited behind the answer before it")
	}
}
