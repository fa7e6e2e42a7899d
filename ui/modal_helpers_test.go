package ui

// The modal on top of the stack, by kind, for tests: nil when the top is
// something else.

func (m *model) topPrompt() *prompt {
	p, _ := m.top().(*prompt)
	return p
}

func (m *model) topForm() *componentForm {
	f, _ := m.top().(*componentForm)
	return f
}

func (m *model) topTree() *treeView {
	t, _ := m.top().(*treeView)
	return t
}

func (m *model) helpOpen() bool {
	_, ok := m.top().(*helpScreen)
	return ok
}

func (m *model) topConfirm() *confirm {
	c, _ := m.top().(*confirm)
	return c
}
