package ui

import (
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// promptKind says what a prompt is for.
type promptKind int

const (
	promptFilter  promptKind = iota // / in the entities view: a query
	promptCommand                   // : and o: a command, as exec takes
	promptEdit                      // e in the detail view: a field's value
	promptTick                      // t in a review: go to a tick
	promptJournal                   // / in the journal: its filter
)

// prompt is the UI's one line of text input, whatever it is for: it shows
// on the bottom line, checks what is typed as it is typed (check), and on
// enter hands the text to submit, which answers a command to run or an
// error that keeps the prompt open. esc closes it. Pastes land whole.
type prompt struct {
	kind   promptKind
	label  string // before the input: "/", ":", "Position.X =", "go to tick"
	hint   string // after it, faint
	input  textinput.Model
	err    string
	check  func(text string) string
	submit func(text string) (tea.Cmd, string)
}

// openPrompt opens a prompt with text already typed.
func (m *model) openPrompt(p *prompt, text string) tea.Cmd {
	p.input = textinput.New()
	p.input.Prompt = ""
	if p.kind == promptFilter {
		p.input.Placeholder = `Position !Fleeing Energy.Value<10`
	}
	p.input.SetValue(text)
	p.input.CursorEnd()
	if p.check != nil {
		p.err = p.check(text)
	}
	m.prompt = p
	return p.input.Focus()
}

// promptKey gives a key to the open prompt.
func (m *model) promptKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	p := m.prompt
	switch msg.Type {
	case tea.KeyEnter:
		cmd, errText := p.submit(p.input.Value())
		if errText != "" {
			p.err = errText // keep typing: nothing was done
			return m, nil
		}
		if m.prompt == p { // submit may have opened another
			m.prompt = nil
		}
		return m, cmd
	case tea.KeyEsc:
		m.prompt = nil
		return m, nil
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.err = ""
	if p.check != nil {
		p.err = p.check(p.input.Value())
	}
	return m, cmd
}

// promptLine is the open prompt as the bottom line shows it.
func (m *model) promptLine() string {
	p := m.prompt
	line := p.label + p.input.View()
	if p.err != "" {
		return line + "  " + m.styles.Error.Render(p.err)
	}
	return line + m.styles.Faint.Render("  "+p.hint)
}
