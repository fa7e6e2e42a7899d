package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// helpScreen is every key of the mode in columns; any key closes it.
type helpScreen struct {
	*common
	box
	groups [][]key.Binding
}

func (h *helpScreen) Line() string          { return "" }
func (h *helpScreen) SetSize(w, ht int)     { h.box = box{w, ht} }
func (h *helpScreen) KeyMap() []key.Binding { return []key.Binding{closeAnyKey} }

// closeAnyKey is the hint of what any key closes.
var closeAnyKey = key.NewBinding(key.WithKeys("esc"), key.WithHelp("any key", "close"))

// Update closes the help on any key.
func (h *helpScreen) Update(msg tea.Msg) (tea.Cmd, bool) {
	_, isKey := msg.(tea.KeyMsg)
	return nil, isKey
}

// View draws the columns; on a narrow terminal they stack in two rows of
// groups so that none is cut off.
func (h *helpScreen) View() []string {
	wide := help.New()
	wide.Width = 0 // measure without cutting
	if ansi.StringWidth(firstLine(wide.FullHelpView(h.groups))) <= h.width {
		return strings.Split(wide.FullHelpView(h.groups), "\n")
	}
	half := (len(h.groups) + 1) / 2
	top := strings.Split(wide.FullHelpView(h.groups[:half]), "\n")
	return append(append(top, ""), strings.Split(wide.FullHelpView(h.groups[half:]), "\n")...)
}

// compareScreen shows what changed between two ticks of a review,
// scrollable; any other key closes it.
type compareScreen struct {
	*common
	box
	lines []string
	off   int // first line shown
}

func (c *compareScreen) Line() string      { return "" }
func (c *compareScreen) SetSize(w, ht int) { c.box = box{w, ht} }

func (c *compareScreen) KeyMap() []key.Binding {
	return []key.Binding{c.keys.Up, c.keys.Down, c.keys.PageDown, c.keys.PageUp, closeAnyKey}
}

// Update scrolls on j k and the page keys, and closes on any other key.
func (c *compareScreen) Update(msg tea.Msg) (tea.Cmd, bool) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, false
	}
	last := max(len(c.lines)-1, 0)
	switch k := c.keys; {
	case key.Matches(km, k.Down):
		c.off = min(c.off+1, last)
	case key.Matches(km, k.Up):
		c.off = max(c.off-1, 0)
	case key.Matches(km, k.PageDown), km.String() == " ":
		c.off = min(c.off+c.height, last)
	case key.Matches(km, k.PageUp):
		c.off = max(c.off-c.height, 0)
	default:
		return nil, true
	}
	return nil, false
}

func (c *compareScreen) View() []string { return c.lines[min(c.off, len(c.lines)):] }
