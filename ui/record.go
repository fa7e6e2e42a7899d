package ui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
)

// Recording the live game from the UI (r), and quitting with a recording
// closed whole.
func (m *model) toggleRecording() tea.Cmd {
	if m.rec != nil {
		r := m.rec
		m.rec = nil
		m.flash("closing the recording…", false)
		return stopRecording(r)
	}
	path := "ecsinspect-" + time.Now().Format("20060102-150405") + ".ecsrec"
	g := m.game
	m.flash("starting a recording…", false)
	return func() tea.Msg {
		r, err := client.StartRecording(g, path, 0, 0)
		return recordingMsg{started: r, path: path, err: err}
	}
}

// stopRecording closes a recording in a command.
func stopRecording(r *client.Recording) tea.Cmd {
	return func() tea.Msg {
		frames, _, _ := r.Progress()
		return recordingMsg{path: r.Path, frames: frames, err: r.Stop()}
	}
}

// recordingMsg is a recording started (started set) or stopped.
type recordingMsg struct {
	started *client.Recording
	path    string
	frames  int
	err     error
}

// recording takes a recording's start or end.
func (m *model) recording(msg recordingMsg) {
	switch {
	case msg.err != nil:
		m.flash("recording: "+msg.err.Error(), true)
	case msg.started != nil:
		m.rec = msg.started
		m.flash("recording every frame to "+msg.path+"; r stops", false)
	default:
		m.flash(fmt.Sprintf("recorded %d frames to %s (ecsinspect open %s)", msg.frames, msg.path, msg.path), false)
	}
}

// quit ends the program, closing a recording whole first.
func (m *model) quit() tea.Cmd {
	if m.rec != nil {
		r := m.rec
		m.rec = nil
		return tea.Sequence(stopRecording(r), tea.Quit)
	}
	return tea.Quit
}
