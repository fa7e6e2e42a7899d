package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// confirm is a question on the bottom line: y does it, o does the second
// answer where there is one, any other key declines. What an answer does
// is built when it is given, never before (a request is sent when made).
type confirm struct {
	*common
	question string
	yes, alt func() tea.Cmd
}

func (c *confirm) View() []string        { return nil }
func (c *confirm) SetSize(int, int)      {}
func (c *confirm) KeyMap() []key.Binding { return nil }

// Update answers the question with the key.
func (c *confirm) Update(msg tea.Msg) (tea.Cmd, bool) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, false
	}
	switch {
	case (km.String() == "y" || km.String() == "Y") && c.yes != nil:
		return c.yes(), true
	case km.String() == "o" && c.alt != nil:
		return c.alt(), true
	}
	c.nav.flash("cancelled", false)
	return nil, true
}

// Line is the question and its answers.
func (c *confirm) Line() string {
	if c.alt != nil {
		return c.styles.Error.Render(c.question + " [y/o/N]")
	}
	return c.styles.Error.Render(c.question + " [y/N]")
}
