package ui

import (
	"github.com/charmbracelet/bubbles/key"
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

// prompt is the UI's one line of text input, whatever it is for: a modal
// on the bottom line that checks what is typed as it is typed (check),
// and on enter hands the text to submit, which answers a command to run
// or an error that keeps the prompt open. esc closes it. Pastes land whole.
type prompt struct {
	*common
	box
	kind   promptKind
	label  string // before the input: "/", ":", "Position.X =", "go to tick"
	hint   string // after it, faint
	input  textinput.Model
	err    string
	check  func(text string) string
	submit func(text string) (tea.Cmd, string)
}

// newPrompt makes a prompt with text already typed.
func newPrompt(c *common, kind promptKind, label, hint, text string, submit func(string) (tea.Cmd, string)) *prompt {
	p := &prompt{common: c, kind: kind, label: label, hint: hint, submit: submit, input: textinput.New()}
	p.input.Prompt = ""
	p.input.SetValue(text)
	p.input.CursorEnd()
	return p
}

// withCheck adds a check run on every change, and on the text now.
func (p *prompt) withCheck(check func(string) string) *prompt {
	p.check = check
	p.err = check(p.input.Value())
	return p
}

// Init focuses the input (its cursor blinks).
func (p *prompt) Init() tea.Cmd { return p.input.Focus() }

func (p *prompt) takesText() bool       { return true }
func (p *prompt) View() []string        { return nil }
func (p *prompt) SetSize(w, h int)      { p.box = box{w, h} }
func (p *prompt) KeyMap() []key.Binding { return nil }

// Update gives a key to the input; enter submits, esc closes.
func (p *prompt) Update(msg tea.Msg) (tea.Cmd, bool) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil, false
	}
	switch km.Type {
	case tea.KeyEnter:
		cmd, errText := p.submit(p.input.Value())
		if errText != "" {
			p.err = errText // keep typing: nothing was done
			return nil, false
		}
		return cmd, true
	case tea.KeyEsc:
		return nil, true
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(km)
	p.err = ""
	if p.check != nil {
		p.err = p.check(p.input.Value())
	}
	return cmd, false
}

// Line is the prompt as the bottom line shows it.
func (p *prompt) Line() string {
	line := p.label + p.input.View()
	if p.err != "" {
		return line + "  " + p.styles.Error.Render(p.err)
	}
	return line + p.styles.Faint.Render("  "+p.hint)
}
