package ui

import (
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/fleet"
)

// Run attaches the terminal UI to an agent until the user quits; on a
// broker's URL (nats://host:4222), it opens the Fleet view.
func Run(addr, token string, errOut io.Writer) error {
	if fleet.IsURL(addr) {
		t, err := fleet.ParseURL(addr)
		if err != nil {
			return err
		}
		if t.Instance == "" {
			return runFleet(t, token)
		}
	}
	_, err := runGame(addr, token, false)
	return err
}

// runGame runs the UI on one game; back: the user asked for the Fleet
// view (F, when opened from it).
func runGame(addr, token string, fromFleet bool) (back bool, err error) {
	sess := newSession(addr, token)
	shown := addr
	if t, err := fleet.ParseURL(addr); err == nil {
		shown = t.String() // no credentials on the screen
	}
	m := newModel(sess, shown)
	m.token, m.fromFleet = token, fromFleet
	p := tea.NewProgram(m, tea.WithAltScreen())
	sess.send = p.Send
	go sess.run()
	_, err = p.Run()
	sess.close()
	return m.backToFleet, err
}

// runFleet runs the Fleet view, and the UI on each instance chosen from
// it, until the user quits.
func runFleet(t fleet.Target, token string) error {
	f, err := newFleetModel(t, token)
	if err != nil {
		return err
	}
	defer f.close()
	for {
		f.attach = ""
		if _, err := tea.NewProgram(f, tea.WithAltScreen()).Run(); err != nil {
			return err
		}
		if f.attach == "" {
			return nil
		}
		back, err := runGame(t.WithInstance(f.attach).URL(), token, true)
		if err != nil {
			f.flashText = fmt.Sprintf("%s: %v", f.attach, err)
		}
		if !back {
			return nil
		}
	}
}

// Open opens the UI on a recording (args: the one file).
func Open(args []string) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("want one .ecsrec file: ecsinspect open FILE.ecsrec")
	}
	p, err := openPlayer(args[0])
	if err != nil {
		return err
	}
	defer p.close()
	m := newModel(p, args[0])
	m.review(p, p.seekedAfter(nil).(seekedMsg).pos)
	prog := tea.NewProgram(m, tea.WithAltScreen())
	_, err = prog.Run()
	return err
}
