package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The panes' shared pieces: which pane draws, lists, names and values.

// viewLines renders the current view's body.
func (m *model) viewLines() []string {
	if m.summary == nil {
		return []string{"waiting for the first frame from " + m.addr + "…"}
	}
	return panes[m.view].draw(m)
}

func (m *model) compName(id uint16) string {
	for _, c := range m.summary.Components {
		if c.ID == id {
			return c.Short
		}
	}
	return fmt.Sprintf("#%d", id)
}

// window returns the slice of n lines around cursor that fits h rows.
func window(cursor, n, h int) (lo, hi int) {
	h = max(h, 1) // a terminal too short still shows the cursor's row
	cursor = max(0, min(cursor, n-1))
	lo = max(0, cursor-h+1)
	hi = min(n, lo+h)
	return min(lo, hi), hi
}

func (m *model) list(header string, rows []string, cursor int) []string {
	out := []string{m.styles.Header.Render(header)}
	lo, hi := window(cursor, len(rows), m.bodyHeight()-1)
	for i := lo; i < hi; i++ {
		if i == cursor {
			out = append(out, m.styles.Selected.Render(fit(rows[i], m.width)))
		} else {
			out = append(out, rows[i])
		}
	}
	return out
}

// visibleArchetypes are the archetypes the view lists: the empty ones only
// when asked (z).
// frameBudget is a frame at 60 Hz, what the systems view measures against.
// access says what a system reads and writes.
// sparkline draws the last n samples as block characters.
// schemaOf returns a component's field schemas, by id.
func (m *model) schemaOf(id uint16) []protocol.FieldSchema {
	if m.summary == nil {
		return nil
	}
	for _, c := range m.summary.Components {
		if c.ID == id {
			return c.Fields
		}
	}
	return nil
}

// field finds a field's schema by name.
func field(fs []protocol.FieldSchema, name string) *protocol.FieldSchema {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i]
		}
	}
	return nil
}

// shortAs prints a value knowing its schema: entity fields as 42v3.
func shortAs(v protocol.Value, f *protocol.FieldSchema) string {
	if f == nil {
		return short(v)
	}
	switch {
	case f.Kind == "entity" && (v.Kind() == protocol.KindInt || v.Kind() == protocol.KindUint):
		if e := protocol.EntityID(uint64(v.Int()) | v.Uint()); e == 0 {
			return "none"
		} else {
			return e.String()
		}
	case v.Kind() == protocol.KindMap && len(f.Fields) > 0:
		return shortFields(v, f.Fields)
	case v.Kind() == protocol.KindList && f.Elem != nil:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = shortAs(v.Index(i), f.Elem)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return short(v)
}

// shortFields prints a struct value field by field with its schema.
func shortFields(v protocol.Value, fs []protocol.FieldSchema) string {
	if v.Kind() != protocol.KindMap {
		return short(v)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := range v.Len() {
		if i > 0 {
			b.WriteByte(' ')
		}
		k, e := v.Entry(i)
		b.WriteString(k + ":" + shortAs(e, field(fs, k)))
	}
	b.WriteByte('}')
	return b.String()
}

// short prints a value for a list: floats to 6 significant digits.
func short(v protocol.Value) string {
	switch v.Kind() {
	case protocol.KindFloat:
		return strconv.FormatFloat(v.Float(), 'g', 6, 64)
	case protocol.KindMap:
		return shortFields(v, nil)
	case protocol.KindList:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = short(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return v.String()
}
