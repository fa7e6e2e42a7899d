package ui

import (
	"strings"
	"testing"
	"time"
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
