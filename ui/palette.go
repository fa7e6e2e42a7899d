package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The command line (: and o): exec's commands and open E.

// openPalette opens the : command line with text already typed: the
// commands of ecsinspect exec, and open E.
func openPalette(c *common, text string) tea.Cmd {
	if c.readOnly && text != "open " && !strings.HasPrefix(text, "pin ") {
		c.nav.flash("read-only agent: commands are off (o opens an entity, :pin charts a number)", true)
		return nil
	}
	return c.nav.push(newPrompt(c, promptCommand, ":", "open E, pin, unpin N, pause resume step N rewind T or -N set add remove parent despawn spawn; enter runs, esc closes", text,
		func(text string) (tea.Cmd, string) { return runCommand(c, text) }))
}

// runCommand runs what was typed on the command line.
func runCommand(c *common, text string) (tea.Cmd, string) {
	words := client.SplitWords(text)
	if len(words) == 0 {
		return nil, ""
	}
	if words[0] == "open" { // the UI's own: open any entity by its handle
		if len(words) != 2 {
			c.nav.flash("open: want an entity like 42v3", true)
			return nil, ""
		}
		e, err := protocol.ParseEntityID(words[1])
		if err != nil || e == 0 {
			c.nav.flash(fmt.Sprintf("open: %q is not an entity like 42v3", words[1]), true)
			return nil, ""
		}
		return c.nav.followEntity(e), ""
	}
	switch words[0] { // the UI's own: the chart's pins
	case "pin":
		return c.nav.pin(strings.Join(words[1:], " ")), ""
	case "unpin":
		n := 0
		if len(words) != 2 {
			c.nav.flash("unpin: want a pin's number (the chart, 9, lists them)", true)
			return nil, ""
		}
		if _, err := fmt.Sscan(words[1], &n); err != nil || n < 1 {
			c.nav.flash(fmt.Sprintf("unpin: %q is not a pin's number", words[1]), true)
			return nil, ""
		}
		return c.nav.unpin(n), ""
	}
	build, what, err := client.ParseCommand(words)
	if err != nil {
		c.nav.flash(firstLine(err.Error()), true)
		return nil, ""
	}
	return c.src.request(what, build), ""
}
