package ui

import (
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// Loading: before a recording's review opens, its last frame is rebuilt
// from its keyframe, which for a long run of deltas takes seconds. The
// screen says how far it got, and q or ctrl-c stops it at once.

// loadingModel is the screen shown while the first seek replays.
type loadingModel struct {
	p             *player
	applied, of   int
	width, height int
	err           error
	quit          bool // the user stopped it
}

type (
	loadProgressMsg struct{ applied, of int }
	loadedMsg       struct{ err error }
)

func (m *loadingModel) Init() tea.Cmd { return nil }

func (m *loadingModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case loadProgressMsg:
		m.applied, m.of = msg.applied, msg.of
	case loadedMsg:
		m.err = msg.err
		return m, tea.Quit
	case tea.KeyMsg:
		if k := msg.String(); k == "q" || k == "ctrl+c" || k == "esc" {
			m.quit = true
			m.p.stopped.Store(true) // the replay stops at its next step
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m *loadingModel) View() string {
	s := fmt.Sprintf("replaying %s to its last frame", m.p.path)
	if m.of > 0 {
		s += fmt.Sprintf(": %d of %d frames (%d%%)", m.applied, m.of, 100*m.applied/m.of)
	}
	return s + "\n\nq or ctrl-c stops"
}

// load rebuilds the player's last frame with the progress on screen. It
// reports whether the review should open: false when the user stopped it.
func load(p *player, opts ...tea.ProgramOption) (bool, error) {
	m := &loadingModel{p: p}
	prog := tea.NewProgram(m, opts...)
	var sent time.Time
	report := func(applied, of int) {
		if now := time.Now(); now.Sub(sent) >= 100*time.Millisecond {
			sent = now
			prog.Send(loadProgressMsg{applied, of})
		}
	}
	p.progress.Store(&report)
	go func() { prog.Send(loadedMsg{p.seek(p.last())}) }()
	_, err := prog.Run()
	p.progress.Store(nil)
	switch {
	case err != nil:
		return false, err
	case m.quit:
		return false, nil
	case errors.Is(m.err, recording.ErrStopped):
		return false, nil
	}
	return m.err == nil, m.err
}
