package ui

import (
	"github.com/charmbracelet/bubbles/key"
)

// reviewKeys are the timeline's keys, for the hints and help of a review.
var reviewKeys = []key.Binding{
	key.NewBinding(key.WithKeys("[", "]"), key.WithHelp("[ ]", "frame")),
	key.NewBinding(key.WithKeys("{", "}"), key.WithHelp("{ }", "keyframe")),
	key.NewBinding(key.WithKeys("g", "G"), key.WithHelp("g G", "start/end")),
	key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "go to tick")),
	key.NewBinding(key.WithKeys("c"), key.WithHelp("c c", "compare two ticks")),
}

// hints are the keys of what has the screen now, for the bottom line.
func (m *model) hints() []key.Binding {
	k := m.keys
	switch {
	case m.tree != nil:
		return []key.Binding{k.Enter, k.Up, k.Down, k.Open, k.Back}
	case m.showDetail && m.play != nil:
		return []key.Binding{k.Enter, k.ToParent, k.Tree, k.Back, k.Open, k.Help}
	case m.showDetail:
		return []key.Binding{k.Enter, k.ToParent, k.Tree, k.Edit, k.Add, k.Remove, k.Despawn, k.Parent, k.Back, k.Help}
	case m.play != nil:
		return append(append([]key.Binding{k.Views}, reviewKeys...), k.Filter, k.Help, k.Quit)
	}
	if h := panes[m.view].hints; h != nil {
		return h(k)
	}
	return m.keys.ShortHelp()
}

// helpGroups are the columns of the help screen for the mode: a review
// lists its timeline, not the keys that change a live game.
func (m *model) helpGroups() [][]key.Binding {
	k := m.keys
	if m.play != nil {
		return [][]key.Binding{
			{k.Views, k.NextView, k.PrevView, k.Help, k.Quit},
			{k.Up, k.Down, k.Left, k.Right, k.Sort, k.PageUp, k.PageDown, k.Enter, k.Back},
			reviewKeys,
			{k.Filter, k.Open, k.ToParent},
		}
	}
	return k.FullHelp()
}
