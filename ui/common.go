package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The pieces every pane and modal shares: what they are (pane, modal),
// what they read (common) and what they may ask of the root (navigator).

// pane is one of the numbered views, or the entity detail: a component
// with its own state. The root gives it the body's size, every data
// message, and the keys while it is on screen.
type pane interface {
	// Title is the pane's name on its tab.
	Title() string
	// Update takes a data message (every pane sees each) or a key (only
	// the pane on screen).
	Update(msg tea.Msg) tea.Cmd
	// View draws the body, at most the height SetSize gave.
	View() []string
	// SetSize gives the body's size; a pane whose window the agent fills
	// answers the new subscription.
	SetSize(width, height int) tea.Cmd
	// KeyMap lists the pane's keys, for the bottom line's hints.
	KeyMap() []key.Binding
}

// modal is what opens over the panes and takes every key until it closes:
// a prompt, a question, a form, the help, a comparison, the hierarchy.
// The root keeps them on a stack; the top one has the keys.
type modal interface {
	// Update takes a key (the top modal only) or a data message (every
	// modal); done reports that it closed.
	Update(msg tea.Msg) (cmd tea.Cmd, done bool)
	// View draws the body, or nil to leave the pane beneath on screen
	// (a prompt or a question lives on the bottom line).
	View() []string
	// Line is the bottom line, or "" for the modal's key hints.
	Line() string
	// SetSize gives the body's size.
	SetSize(width, height int)
	// KeyMap lists the modal's keys, for the hints.
	KeyMap() []key.Binding
}

// textTaker is a modal that takes typed text (a prompt, a form): the rest
// of a burst of runes that opened it is its text, not keys.
type textTaker interface {
	takesText() bool
}

// navigator is what a pane may ask of the root, synchronously: a key
// burst applies key by key, so a key that opens the detail or a prompt
// must have done so before the next key of the burst arrives (a message
// round trip would let the next keys reach the pane left behind).
type navigator interface {
	openEntity(e protocol.EntityID) tea.Cmd   // the detail, a new trail
	followEntity(e protocol.EntityID) tea.Cmd // the detail, from where the UI stands (esc comes back)
	showPane(v int) tea.Cmd                   // one of the numbered views, closing the detail
	listArchetype(arch int64) tea.Cmd         // the entities view, limited to an archetype (1 + id)
	listQuery(expr string) tea.Cmd            // the entities view, filtered by a query
	browseResource(name, path string) tea.Cmd // the resources view, at the value at path in resource name
	push(m modal) tea.Cmd                     // open a modal
	flash(text string, isErr bool)            // a note on the bottom line
	pin(expr string) tea.Cmd                  // follow a series on the chart (see protocol.ParseSeries)
	unpin(n int) tea.Cmd                      // stop following the chart's pin n (from 1)
}

// common is what the panes and modals read: the source of the world, the
// latest of what it sent, the styles and keys, and the root to ask.
type common struct {
	src      source
	play     *player // a recording under review, or nil for a live game
	addr     string
	styles   Styles
	keys     keyMap
	nav      navigator
	conn     connMsg
	readOnly bool

	summary *protocol.Summary
	events  *protocol.Events
	journal []protocol.JournalEntry // oldest first, maxJournal to half as many again
}

// box is a component's size, set by SetSize.
type box struct{ width, height int }

// SetSize takes the pane's new size: every pane that embeds a box and
// needs nothing more on a resize has this as its SetSize.
func (b *box) SetSize(width, height int) tea.Cmd { *b = box{width, height}; return nil }

// wrap fits prose to the box's width (wrapRow, line by line), so a hint
// or an error is read whole on a narrow terminal instead of cut at its
// edge.
func (b box) wrap(lines ...string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, wrapRow(l, b.width, maxWrap)...)
	}
	return out
}

// wrapIn is wrap for styled prose: the lines are wrapped as plain text,
// so they are cut at words, then each is drawn in st.
func (b box) wrapIn(st lipgloss.Style, lines ...string) []string {
	out := b.wrap(lines...)
	for i, l := range out {
		out[i] = st.Render(l)
	}
	return out
}

// compName is a component's short name, by id.
func (c *common) compName(id uint16) string {
	if sc := c.schemaComp(id); sc != nil {
		return sc.Short
	}
	return fmt.Sprintf("#%d", id)
}

// schemaComp is a component's schema, by id, or nil.
func (c *common) schemaComp(id uint16) *protocol.Component {
	if c.summary == nil {
		return nil
	}
	for i := range c.summary.Components {
		if c.summary.Components[i].ID == id {
			return &c.summary.Components[i]
		}
	}
	return nil
}

// fieldAt finds the schema of a field path like "Position.X" or
// "Stats.Scores[2]" among the summary's components, or nil.
func (c *common) fieldAt(path string) *protocol.FieldSchema {
	if c.summary == nil {
		return nil
	}
	parts := strings.Split(path, ".")
	var fs []protocol.FieldSchema
	for _, sc := range c.summary.Components {
		if sc.Short == parts[0] {
			fs = sc.Fields
		}
	}
	var cur *protocol.FieldSchema
	for _, p := range parts[1:] {
		name, rest, indexed := strings.Cut(p, "[")
		cur = field(fs, name)
		if cur == nil {
			return nil
		}
		for indexed { // each [i] steps into the element
			if cur.Elem == nil {
				return nil
			}
			cur = cur.Elem
			_, rest, indexed = strings.Cut(rest, "[")
		}
		fs = cur.Fields
	}
	return cur
}

// list is a cursor over rows drawn under a header, in a window that keeps
// the cursor on screen.
type list struct{ cursor int }

// move moves the cursor for a key over n rows with pages of page rows;
// false if the key does not move it.
func (l *list) move(k keyMap, msg tea.KeyMsg, n, page int) bool {
	switch {
	case key.Matches(msg, k.Up):
		l.cursor--
	case key.Matches(msg, k.Down):
		l.cursor++
	case key.Matches(msg, k.PageUp):
		l.cursor -= page
	case key.Matches(msg, k.PageDown):
		l.cursor += page
	case key.Matches(msg, k.Top):
		l.cursor = 0
	case key.Matches(msg, k.Bottom):
		l.cursor = n - 1
	default:
		return false
	}
	l.clamp(n)
	return true
}

// clamp keeps the cursor on one of n rows.
func (l *list) clamp(n int) { l.cursor = max(min(l.cursor, n-1), 0) }

// draw renders the header and the rows around the cursor in the box. The
// row under the cursor is shown whole: wider than the box, it goes on over
// up to maxWrap more lines, indented, where the others are cut.
func (l *list) draw(st Styles, b box, header string, rows []string) []string {
	return l.drawRows(st, b, header, len(rows), func(i int) string { return rows[i] })
}

// drawRows is draw for n rows made by row, which is asked only for the
// rows the box shows: a list of ten thousand formats a screenful.
func (l *list) drawRows(st Styles, b box, header string, n int, row func(i int) string) []string {
	out := []string{st.Header.Render(header)}
	var selected []string
	if l.cursor >= 0 && l.cursor < n {
		selected = wrapRow(row(l.cursor), b.width, max(min(maxWrap, b.height-2), 0))
	}
	lo, hi := window(l.cursor, n, b.height-len(selected))
	for i := lo; i < hi; i++ {
		if i != l.cursor {
			out = append(out, row(i))
			continue
		}
		for _, line := range selected {
			out = append(out, st.Selected.Render(fit(line, b.width)))
		}
	}
	return out
}

// maxWrap is the most lines a selected row goes on over.
const maxWrap = 3

// wrapRow splits a row wider than width into its first width cells and up
// to more lines of the rest, cut at words, each indented two cells past
// the row's own indent (two cells from the left when that indent would
// take half the width); the last one cut says so (fit's …).
func wrapRow(row string, width, more int) []string {
	if width <= 2 || ansi.StringWidth(row) <= width || more == 0 {
		return []string{row}
	}
	plain := ansi.Strip(row)
	indent := "  " + plain[:len(plain)-len(strings.TrimLeft(plain, " "))]
	if len(indent) >= width/2 {
		indent = "  "
	}
	first, rest := cutAtWord(row, width)
	lines := []string{first}
	for len(lines) <= more && rest != "" {
		if len(lines) == more || ansi.StringWidth(rest) <= width-len(indent) {
			lines = append(lines, indent+rest) // the last: fit cuts it if it must
			break
		}
		var line string
		line, rest = cutAtWord(rest, width-len(indent))
		lines = append(lines, indent+line)
	}
	return lines
}

// cutAtWord splits s after at most width cells: at the last space of the
// line's second half, so a word is not broken over two lines, else at the
// width. Styled text is cut by cells, its escapes kept on both sides.
func cutAtWord(s string, width int) (line, rest string) {
	line = ansi.Truncate(s, width, "")
	rest = ansi.TruncateLeft(s, width, "")
	plainLine, plainRest := ansi.Strip(line), ansi.Strip(rest)
	if plainRest == "" || strings.HasPrefix(plainRest, " ") || strings.HasSuffix(plainLine, " ") {
		kept := ansi.StringWidth(strings.TrimRight(plainLine, " "))
		if strings.TrimLeft(plainRest, " ") == "" { // nothing left but spaces and escapes
			return ansi.Truncate(s, kept, ""), ""
		}
		skipped := len(plainRest) - len(strings.TrimLeft(plainRest, " "))
		return ansi.Truncate(s, kept, ""), ansi.TruncateLeft(s, width+skipped, "")
	}
	if at := strings.LastIndex(plainLine, " "); at >= len(plainLine)/2 && at > 0 {
		cells := ansi.StringWidth(plainLine[:at])
		return ansi.Truncate(s, cells, ""), ansi.TruncateLeft(s, cells+1, "")
	}
	return line, rest
}

// window returns the slice of n lines around cursor that fits h rows.
func window(cursor, n, h int) (lo, hi int) {
	h = max(h, 1) // a terminal too short still shows the cursor's row
	cursor = max(0, min(cursor, n-1))
	lo = max(0, cursor-h+1)
	hi = min(n, lo+h)
	return min(lo, hi), hi
}
