package ui

import (
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// Run attaches the terminal UI to an agent until the user quits.
func Run(addr, token string, errOut io.Writer) error {
	sess := newSession(addr, token)
	m := newModel(sess, addr)
	m.token = token
	p := tea.NewProgram(m, tea.WithAltScreen())
	sess.send = p.Send
	go sess.run()
	_, err := p.Run()
	sess.close()
	return err
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
