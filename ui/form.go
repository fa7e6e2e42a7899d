package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// componentForm is what a and n open: first a list of the world's component
// types to choose from (type to narrow it), then one input per field of
// the chosen components, each checked against its type before anything is
// sent. a adds one component to the entity on screen; n spawns an entity
// with the components marked.
type componentForm struct {
	*common
	box
	spawn  bool
	entity protocol.EntityID // the entity a adds to

	choices []protocol.Component // every component type it may offer
	narrow  string               // typed to narrow the list
	cursor  int                  // in the narrowed list
	marked  map[string]bool      // n: the components chosen so far

	filling bool // second stage: the fields
	fields  []formField
	focus   int
	err     string
}

// formField is one leaf field of a chosen component.
type formField struct {
	component string
	path      []string // field names from the component down
	kind      string   // the schema's kind: int, float, bool, string, entity…
	goType    string
	input     textinput.Model // nil-like (unused) when the field cannot be typed
	editable  bool
}

// typedKinds are the kinds a person can type a value for.
var typedKinds = map[string]bool{"bool": true, "int": true, "uint": true, "float": true, "string": true, "entity": true}

// newComponentForm lists the components the summary knows, without those
// the entity already has (for a) and without the relation's internals.
func newComponentForm(c *common, spawn bool, e protocol.EntityID, has map[string]bool) *componentForm {
	f := &componentForm{common: c, spawn: spawn, entity: e, marked: map[string]bool{}}
	if s := c.summary; s != nil {
		for _, c := range s.Components {
			if !has[c.Short] {
				f.choices = append(f.choices, c)
			}
		}
	}
	sort.Slice(f.choices, func(i, j int) bool { return f.choices[i].Short < f.choices[j].Short })
	return f
}

// visible is the list narrowed by what was typed.
func (f *componentForm) visible() []protocol.Component {
	if f.narrow == "" {
		return f.choices
	}
	var out []protocol.Component
	low := strings.ToLower(f.narrow)
	for _, c := range f.choices {
		if strings.Contains(strings.ToLower(c.Short), low) {
			out = append(out, c)
		}
	}
	return out
}

// chosen is what enter takes: the marked components, or the one under the
// cursor when none is marked.
func (f *componentForm) chosen() []protocol.Component {
	var out []protocol.Component
	for _, c := range f.choices {
		if f.marked[c.Short] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		if vis := f.visible(); f.cursor < len(vis) {
			out = append(out, vis[f.cursor])
		}
	}
	return out
}

// startFields builds one input per leaf field of the chosen components.
func (f *componentForm) startFields(comps []protocol.Component) tea.Cmd {
	f.fields = nil
	for _, c := range comps {
		f.fields = appendFormFields(f.fields, c.Short, nil, c.Fields)
		if len(c.Fields) == 0 { // a tag: a line that says so
			f.fields = append(f.fields, formField{component: c.Short})
		}
	}
	f.filling, f.focus, f.err = true, -1, ""
	return f.move(1)
}

func appendFormFields(out []formField, comp string, path []string, fs []protocol.FieldSchema) []formField {
	for _, s := range fs {
		p := append(append([]string(nil), path...), s.Name)
		if s.Kind == "struct" && len(s.Fields) > 0 {
			out = appendFormFields(out, comp, p, s.Fields)
			continue
		}
		ff := formField{component: comp, path: p, kind: s.Kind, goType: s.Type, editable: typedKinds[s.Kind]}
		if ff.editable {
			ff.input = textinput.New()
			ff.input.Prompt = ""
			ff.input.Placeholder = zeroText(s.Kind)
			ff.input.CharLimit = 256
			ff.input.Width = 30
		}
		out = append(out, ff)
	}
	return out
}

// zeroText is how a field's zero value is shown while it is left empty.
func zeroText(kind string) string {
	switch kind {
	case "bool":
		return "false"
	case "string":
		return `""`
	case "entity":
		return "none (or 42v3)"
	}
	return "0"
}

// move focuses the next (dir 1) or previous (dir -1) field that takes input.
func (f *componentForm) move(dir int) tea.Cmd {
	n := len(f.fields)
	for step := 1; step <= n; step++ {
		i := ((f.focus+dir*step)%n + n) % n
		if f.fields[i].editable {
			if f.focus >= 0 && f.focus < n && f.fields[f.focus].editable {
				f.fields[f.focus].input.Blur()
			}
			f.focus = i
			return f.fields[i].input.Focus()
		}
	}
	return nil
}

// values checks every typed field and builds the components to send; on a
// bad field it focuses it and says why.
func (f *componentForm) values() ([]protocol.ComponentValue, error) {
	var order []string
	byComp := map[string][]protocol.Field{}
	for i := range f.fields {
		ff := &f.fields[i]
		if _, seen := byComp[ff.component]; !seen {
			order = append(order, ff.component)
			byComp[ff.component] = nil
		}
		if !ff.editable || strings.TrimSpace(ff.input.Value()) == "" {
			continue // left at its zero value
		}
		v, err := client.TypedInput(ff.kind, ff.input.Value())
		if err != nil {
			if f.focus >= 0 && f.focus < len(f.fields) && f.fields[f.focus].editable {
				f.fields[f.focus].input.Blur()
			}
			f.focus = i
			ff.input.Focus()
			return nil, fmt.Errorf("%s.%s: %v", ff.component, strings.Join(ff.path, "."), err)
		}
		byComp[ff.component] = setPath(byComp[ff.component], ff.path, v)
	}
	out := make([]protocol.ComponentValue, 0, len(order))
	for _, c := range order {
		cv := protocol.ComponentValue{Component: c}
		if fs := byComp[c]; len(fs) > 0 {
			cv.Value = protocol.MapValue(fs...)
		}
		out = append(out, cv)
	}
	return out, nil
}

// setPath puts v at a nested field path, building the maps on the way.
func setPath(fields []protocol.Field, path []string, v protocol.Value) []protocol.Field {
	if len(path) == 1 {
		return append(fields, protocol.Field{Name: path[0], Value: v})
	}
	for i := range fields {
		if fields[i].Name == path[0] {
			inner := make([]protocol.Field, 0, fields[i].Value.Len()+1)
			for j := range fields[i].Value.Len() {
				name, fv := fields[i].Value.Entry(j)
				inner = append(inner, protocol.Field{Name: name, Value: fv})
			}
			fields[i].Value = protocol.MapValue(setPath(inner, path[1:], v)...)
			return fields
		}
	}
	return append(fields, protocol.Field{Name: path[0], Value: protocol.MapValue(setPath(nil, path[1:], v)...)})
}

// request is the message the form sends.
func (f *componentForm) request(src source) (tea.Cmd, error) {
	comps, err := f.values()
	if err != nil {
		return nil, err
	}
	if f.spawn {
		names := make([]string, len(comps))
		for i, c := range comps {
			names[i] = c.Component
		}
		return src.request("spawn "+strings.Join(names, " "), func(id uint32) protocol.Message {
			return &protocol.Spawn{ID: id, Components: comps}
		}), nil
	}
	e, cv := f.entity, comps[0]
	return src.request("add "+cv.Component+" to "+e.String(), func(id uint32) protocol.Message {
		return &protocol.AddComponent{ID: id, Entity: e, Component: cv.Component, Value: cv.Value}
	}), nil
}

func (f *componentForm) takesText() bool  { return true }
func (f *componentForm) Line() string     { return "" }
func (f *componentForm) SetSize(w, h int) { f.box = box{w, h} }

// KeyMap is the form's keys for the stage it is in.
func (f *componentForm) KeyMap() []key.Binding {
	if f.filling {
		return formFillKeys
	}
	if f.spawn {
		return formSpawnKeys
	}
	return formChooseKeys
}

// The form's keys, for the hints: choosing components, then their fields.
var (
	formChooseKeys = []key.Binding{
		key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "choose")),
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "fields")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
	formSpawnKeys = []key.Binding{formChooseKeys[0],
		key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "mark")),
		formChooseKeys[1], formChooseKeys[2]}
	formFillKeys = []key.Binding{
		key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
)

// Update handles a key while the form is open; done reports it closed.
func (f *componentForm) Update(m tea.Msg) (tea.Cmd, bool) {
	msg, ok := m.(tea.KeyMsg)
	if !ok {
		return nil, false
	}
	if !f.filling {
		vis := f.visible()
		switch msg.Type {
		case tea.KeyEsc:
			return nil, true
		case tea.KeyUp:
			f.cursor = max(f.cursor-1, 0)
		case tea.KeyDown:
			f.cursor = max(min(f.cursor+1, len(vis)-1), 0)
		case tea.KeySpace:
			if f.spawn && f.cursor < len(vis) {
				name := vis[f.cursor].Short
				f.marked[name] = !f.marked[name]
			}
		case tea.KeyBackspace:
			if f.narrow != "" {
				f.narrow = f.narrow[:len(f.narrow)-1]
				f.cursor = 0
			}
		case tea.KeyEnter:
			comps := f.chosen()
			if len(comps) == 0 {
				f.err = "nothing to choose: type less to see more components"
				return nil, false
			}
			return f.startFields(comps), false
		case tea.KeyRunes:
			f.narrow += string(msg.Runes)
			f.cursor, f.err = 0, ""
		}
		return nil, false
	}
	switch msg.String() {
	case "esc":
		f.filling, f.err = false, ""
		return nil, false
	case "tab", "down":
		return f.move(1), false
	case "shift+tab", "up":
		return f.move(-1), false
	case "enter":
		cmd, err := f.request(f.src)
		if err != nil {
			f.err = err.Error()
			return nil, false
		}
		return cmd, true
	}
	if f.focus < 0 || f.focus >= len(f.fields) || !f.fields[f.focus].editable {
		return nil, false
	}
	var cmd tea.Cmd
	f.fields[f.focus].input, cmd = f.fields[f.focus].input.Update(msg)
	f.err = ""
	return cmd, false
}

// View draws the form in the body.
func (f *componentForm) View() []string {
	title := "Add a component to " + f.entity.String()
	if f.spawn {
		title = "Spawn an entity"
	}
	out := []string{f.styles.Header.Render(title)}
	if !f.filling {
		hint := "type to narrow, ↑/↓ choose, enter fills in its fields, esc cancels"
		if f.spawn {
			hint = "type to narrow, ↑/↓ move, space marks, enter fills in the fields, esc cancels"
		}
		out = append(out, f.styles.Faint.Render(hint), "> "+f.narrow)
		vis := f.visible()
		lo, hi := window(f.cursor, len(vis), f.height-len(out)-1)
		for i := lo; i < hi; i++ {
			c := vis[i]
			mark := "  "
			if f.marked[c.Short] {
				mark = "✓ "
			}
			line := fmt.Sprintf("%s%-20s %-6s %4d B  %s", mark, c.Short, c.Storage, c.Size, fieldSummary(c.Fields))
			if i == f.cursor {
				line = f.styles.Selected.Render(fit(line, f.width))
			}
			out = append(out, line)
		}
		if len(vis) == 0 {
			out = append(out, f.styles.Faint.Render("no component matches"))
		}
		if f.err != "" {
			out = append(out, f.styles.Error.Render(f.err))
		}
		return out
	}
	out = append(out, f.styles.Faint.Render("tab/↑/↓ move, enter sends, esc goes back; an empty field is its zero value"))
	last := ""
	lines := []string{}
	focusLine := 0
	for i, ff := range f.fields {
		if ff.component != last {
			lines = append(lines, f.styles.Title.Render(ff.component))
			last = ff.component
		}
		if ff.path == nil {
			lines = append(lines, f.styles.Faint.Render("  (a tag: no fields)"))
			continue
		}
		label := fmt.Sprintf("  %-18s %-10s ", strings.Join(ff.path, "."), ff.goType)
		if !ff.editable {
			lines = append(lines, label+f.styles.Faint.Render("(zero value; set it later with e)"))
			continue
		}
		if i == f.focus {
			focusLine = len(lines)
			lines = append(lines, f.styles.Key.Render(label)+ff.input.View())
		} else {
			lines = append(lines, label+ff.input.View())
		}
	}
	room := f.height - len(out) - 1
	lo, hi := window(focusLine, len(lines), room)
	out = append(out, lines[lo:hi]...)
	if f.err != "" {
		out = append(out, f.styles.Error.Render(f.err))
	}
	return out
}

// fieldSummary lists a component's field names for the chooser.
func fieldSummary(fs []protocol.FieldSchema) string {
	if len(fs) == 0 {
		return "(tag)"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, " ")
}

// openForm opens the a (add to entity e, whose components are has) or n
// (spawn) form.
func openForm(c *common, spawn bool, e protocol.EntityID, comps []protocol.ComponentValue) tea.Cmd {
	if c.readOnly {
		c.nav.flash("read-only agent: commands are off", true)
		return nil
	}
	if c.summary == nil {
		c.nav.flash("no schema yet: waiting for the first frame", true)
		return nil
	}
	has := map[string]bool{"ChildOf": true} // the relation has its own commands
	for _, cv := range comps {
		has[cv.Component] = true
	}
	return c.nav.push(newComponentForm(c, spawn, e, has))
}
