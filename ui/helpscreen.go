package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// helpScreen is every key of the mode in columns, the view's own first;
// j k and the page keys scroll it when it is taller than the screen, any
// other key closes it.
type helpScreen struct {
	*common
	box
	groups [][]key.Binding
	title  string // the view whose keys come first
	off    int    // the first line shown
}

func (h *helpScreen) Line() string      { return "" }
func (h *helpScreen) SetSize(w, ht int) { h.box = box{w, ht} }
func (h *helpScreen) KeyMap() []key.Binding {
	return []key.Binding{h.keys.Down, h.keys.Up, closeAnyKey}
}

// closeAnyKey is the hint of what any key closes.
var closeAnyKey = key.NewBinding(key.WithKeys("esc"), key.WithHelp("any key", "close"))

// Update scrolls on j k and the page keys (nothing to scroll when the
// help fits), and closes on any other key.
func (h *helpScreen) Update(msg tea.Msg) (tea.Cmd, bool) {
	km, isKey := msg.(tea.KeyMsg)
	if !isKey {
		return nil, false
	}
	last := 0 // the first line shown at the bottom: the last line above the footer
	if n := len(h.lines()); n > h.height {
		last = n - (h.height - 1)
	}
	switch k := h.keys; {
	case key.Matches(km, k.Down):
		h.off = min(h.off+1, last)
	case key.Matches(km, k.Up):
		h.off = max(h.off-1, 0)
	case key.Matches(km, k.PageDown):
		h.off = min(h.off+h.height, last)
	case key.Matches(km, k.PageUp):
		h.off = max(h.off-h.height, 0)
	default:
		return nil, true
	}
	return nil, false
}

// lines are the help's lines: a title, then the columns; on a narrow
// terminal the columns stack in rows of groups so that none is cut off.
func (h *helpScreen) lines() []string {
	wide := help.New()
	wide.Width = 0 // measure without cutting
	out := []string{"keys of " + h.title + " first, then of every view"}
	var rows [][][]key.Binding // groups side by side, row by row
	for from := 0; from < len(h.groups); {
		n := len(h.groups) - from
		for n > 1 && ansi.StringWidth(firstLine(wide.FullHelpView(h.groups[from:from+n]))) > h.width {
			n--
		}
		rows = append(rows, h.groups[from:from+n])
		from += n
	}
	for _, r := range rows {
		out = append(append(out, ""), strings.Split(wide.FullHelpView(r), "\n")...)
	}
	return out
}

// View draws the help from the line scrolled to, saying so when more is
// below.
func (h *helpScreen) View() []string {
	lines := h.lines()
	if len(lines) <= h.height || h.height < 2 {
		return lines
	}
	end := min(h.off+h.height-1, len(lines))
	return append(slices.Clone(lines[h.off:end]), fmt.Sprintf("(lines %d-%d of %d: j k scroll, any other key closes)", h.off+1, end, len(lines)))
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
