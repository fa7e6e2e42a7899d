package ui

import (
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
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
			return runFleet(addr, token)
		}
	}
	_, err := runGame(client.GameAt(addr, token), false)
	return err
}

// terminal is how every program of the UI takes the terminal: the whole
// of it, redrawn at most screenFPS times a second.
var terminal = []tea.ProgramOption{tea.WithAltScreen(), tea.WithFPS(screenFPS)}

// screenFPS: Bubble Tea's renderer compares the whole screen, as a new
// string, at each of its ticks, changed or not (60 a second by default:
// a fifth of the UI's time at rest); 30 keeps a key's echo within 33 ms.
const screenFPS = 30

// runGame runs the UI on one game; back: the user asked for the Fleet
// view (F, when opened from it).
func runGame(g client.Game, fromFleet bool) (back bool, err error) {
	sess := newSession(g)
	m := newModel(sess, g.String()) // no credentials on the screen
	m.fromFleet = fromFleet
	p := tea.NewProgram(m, terminal...)
	sess.send = p.Send
	go sess.run()
	_, err = p.Run()
	sess.close()
	return m.backToFleet, err
}

// runFleet runs the Fleet view, and the UI on each instance chosen from
// it, until the user quits.
func runFleet(addr, token string) error {
	fl, err := client.OpenFleet(addr, token)
	if err != nil {
		return err
	}
	defer fl.Close()
	f, err := newFleetModel(fl)
	if err != nil {
		return err
	}
	for {
		f.attach = ""
		if _, err := tea.NewProgram(f, terminal...).Run(); err != nil {
			return err
		}
		if f.attach == "" {
			return nil
		}
		back, err := runGame(fl.Game(f.attach), true)
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
	p, err := openPlayerAtNone(args[0])
	if err != nil {
		return err
	}
	defer p.close()
	if review, err := load(p, terminal...); !review {
		return err
	}
	m := newModel(p, args[0])
	m.review(p, p.seekedAfter(nil).(seekedMsg).pos)
	prog := tea.NewProgram(m, terminal...)
	_, err = prog.Run()
	return err
}
