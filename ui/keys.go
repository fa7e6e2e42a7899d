package ui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key the UI answers, with its help.
type keyMap struct {
	Views, NextView, PrevView, Up, Down, Left, Right, Sort, PageUp, PageDown, Top, Bottom, Enter, Back,
	Filter, Pause, Step, Edit, Add, Remove, Despawn, Spawn, Parent, ToParent, Holders, Tree, Timeline, Map, Open, ShowEmpty, Palette, Record, Help, Quit key.Binding
	Watch, Unwatch, ToggleWatch, Rewind, Pin, Unpin, SplitScales, Freeze, Fleet key.Binding
}

func defaultKeys() keyMap {
	return keyMap{
		Views:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9", "0"), key.WithHelp("0-9", "views")),
		NextView:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view")),
		PrevView:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous view")),
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Left:        key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "column left")),
		Right:       key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "column right")),
		Sort:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort by column (↑ ↓ off)")),
		PageUp:      key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:         key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:      key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		Enter:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter (query)")),
		Pause:       key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause/resume")),
		Step:        key.NewBinding(key.WithKeys("."), key.WithHelp(".", "step a frame")),
		Edit:        key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit field")),
		Add:         key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add component")),
		Remove:      key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "remove component")),
		Despawn:     key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "despawn")),
		Spawn:       key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "spawn")),
		Parent:      key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "set parent (detail)")),
		ToParent:    key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "open the parent (detail)")),
		Timeline:    key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "frame timeline: bars (systems)")),
		Map:         key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "map: the filter's entities by position (entities); a list of numbers as a heat map (resources)")),
		Holders:     key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "holders of this target (detail)")),
		Tree:        key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "hierarchy tree (detail)")),
		Open:        key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open an entity by handle")),
		ShowEmpty:   key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "show/hide empty archetypes")),
		Palette:     key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command (as exec)")),
		Record:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "record / stop")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Watch:       key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "set a watchpoint")),
		Unwatch:     key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "remove watchpoint (8)")),
		Unpin:       key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "remove the pin")),
		SplitScales: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "one scale / a scale each")),
		ToggleWatch: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "watchpoint on/off, or open a hit's entity (8)")),
		Pin:         key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pin a field to the chart (detail)")),
		Freeze:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "freeze/follow")),
		Rewind:      key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "rewind (a tick, or -N back)")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Fleet:       key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "back to the Fleet view (opened from one)")),
	}
}

// FullHelp lists the keys in columns for the help screen.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Views, k.NextView, k.PrevView, k.Help, k.Quit},
		{k.Up, k.Down, k.Left, k.Right, k.Sort, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Enter, k.Back, k.ShowEmpty},
		{k.Filter, k.Open, k.Pause, k.Step, k.Palette, k.Record, k.Watch, k.Rewind, k.Timeline, k.Map},
		{k.Edit, k.Add, k.Remove, k.Despawn, k.Spawn, k.Parent, k.ToParent, k.Holders, k.Tree, k.Pin},
	}
}

// ShortHelp is the one-line reminder.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Views, k.Filter, k.Enter, k.Pause, k.Step, k.Help, k.Quit}
}
