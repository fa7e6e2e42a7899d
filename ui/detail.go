package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// detailLine is one line of the entity detail: a component or a field.
type detailLine struct {
	text      string
	path      string // "Position.X" for an editable field
	component string // the component the line belongs to
	value     protocol.Value
}

// openDetail shows entity e, starting a new trail of followed references.
func (m *model) openDetail(e protocol.EntityID) tea.Cmd {
	m.trail = nil
	return m.showEntity(e)
}

// followEntity opens e from where the UI stands: from an open detail the
// entity shown goes on the trail, so esc comes back to it.
func (m *model) followEntity(e protocol.EntityID) tea.Cmd {
	if m.showDetail && m.detail != nil && m.detail.Entity != e {
		m.trail = append(m.trail, m.detail.Entity)
	} else if !m.showDetail {
		m.trail = nil
	}
	return m.showEntity(e)
}

// leaveDetail closes the detail view (and its trail), if open.
func (m *model) leaveDetail() tea.Cmd {
	if !m.showDetail {
		return nil
	}
	m.showDetail, m.trail = false, nil
	return m.src.unsubscribe(subDetail)
}

func (m *model) showEntity(e protocol.EntityID) tea.Cmd {
	m.showDetail, m.detailLine, m.detail = true, 0, nil
	m.prevDetail = map[string]string{}
	m.changedAt = map[string]time.Time{}
	return m.src.subscribe(protocol.Subscribe{ID: subDetail, What: protocol.SubEntity, Entity: e, Hz: 10})
}

// setDetail takes a new frame of the entity, noting which values changed.
func (m *model) setDetail(d *protocol.Detail) {
	now := time.Now()
	seen := map[string]string{}
	for _, l := range m.detailLines(d) {
		if l.path == "" {
			continue
		}
		v := l.value.String()
		if old, ok := m.prevDetail[l.path]; ok && old != v {
			m.changedAt[l.path] = now
		}
		seen[l.path] = v
	}
	m.prevDetail = seen
	m.detail = d
	if d.Alive {
		m.lastAlive = d
	}
}

// despawnNote says when and by whom e was despawned, from the journal.
func (m *model) despawnNote(e protocol.EntityID) string {
	for i := len(m.journal) - 1; i >= 0; i-- {
		if j := m.journal[i]; j.Entity == e && j.Op == "despawn" {
			return fmt.Sprintf("despawned at tick %d by %s", j.Frame, j.System)
		}
	}
	return ""
}

// detailLines flattens the entity's components into lines, fields as a tree.
func (m *model) detailLines(d *protocol.Detail) []detailLine {
	var out []detailLine
	for _, c := range d.Components {
		out = append(out, detailLine{text: c.Component, component: c.Component})
		var fs []protocol.FieldSchema
		if m.summary != nil {
			for _, sc := range m.summary.Components {
				if sc.Short == c.Component {
					fs = sc.Fields
				}
			}
		}
		out = appendFields(out, c.Component, c.Component, c.Value, fs, 1)
	}
	return out
}

func appendFields(out []detailLine, comp, path string, v protocol.Value, fs []protocol.FieldSchema, depth int) []detailLine {
	indent := strings.Repeat("  ", depth)
	switch v.Kind() {
	case protocol.KindMap:
		for i := range v.Len() {
			name, fv := v.Entry(i)
			p := path + "." + name
			f := field(fs, name)
			if fv.Kind() == protocol.KindMap || (fv.Kind() == protocol.KindList && fv.Len() <= 16) {
				out = append(out, detailLine{text: indent + name, component: comp})
				var sub []protocol.FieldSchema
				if f != nil {
					sub = f.Fields
				}
				out = appendFields(out, comp, p, fv, sub, depth+1)
				continue
			}
			out = append(out, detailLine{text: indent + name + " = " + shortAs(fv, f), path: p, component: comp, value: fv})
		}
	case protocol.KindList:
		for i := range v.Len() {
			p := fmt.Sprintf("%s[%d]", path, i)
			out = append(out, detailLine{text: fmt.Sprintf("%s[%d] = %s", indent, i, short(v.Index(i))), path: p, component: comp, value: v.Index(i)})
		}
	}
	return out
}

func (m *model) detailView() []string {
	d := m.detail
	if d == nil {
		return []string{"loading entity…"}
	}
	if !d.Alive {
		out := []string{m.styles.Header.Render("Entity " + d.Entity.String())}
		if note := m.despawnNote(d.Entity); note != "" {
			out = append(out, m.styles.Error.Render(note))
		} else {
			out = append(out, m.styles.Error.Render(d.Reason))
		}
		if last := m.lastAlive; last != nil && last.Entity == d.Entity {
			out = append(out, m.styles.Faint.Render(fmt.Sprintf("as it was last seen, at tick %d:", last.Tick)))
			for _, l := range m.detailLines(last) {
				out = append(out, m.styles.Faint.Render(l.text))
			}
		}
		return append(out, "", "esc to go back")
	}
	title := "Entity " + d.Entity.String()
	for i := len(m.trail) - 1; i >= 0; i-- { // the way here, newest first: esc walks it back
		title += " ← " + m.trail[i].String()
	}
	out := []string{
		m.styles.Header.Render(title),
		fmt.Sprintf("archetype %d row %d  generation %d (slot recycled %d times)", d.Archetype, d.Row, d.Entity.Generation(), d.Entity.Generation()-1),
	}
	rel := "parent: none"
	if d.Parent != 0 {
		rel = "parent: " + d.Parent.String()
	}
	if len(d.Children) > 0 {
		rel += "  " + childList(d.Children, m.width-len(rel)-2)
	}
	out = append(out, rel, "")
	lines := m.detailLines(d)
	m.detailLine = max(min(m.detailLine, len(lines)-1), 0)
	lo, hi := window(m.detailLine, len(lines), m.bodyHeight()-len(out))
	for i := lo; i < hi; i++ {
		l := lines[i]
		text := l.text
		if l.path == "" {
			text = m.styles.Title.Render(text)
		} else if t, ok := m.changedAt[l.path]; ok && time.Since(t) < 1500*time.Millisecond {
			text = m.styles.Changed.Render(text)
		}
		if i == m.detailLine {
			text = m.styles.Selected.Render(fit(text, m.width))
		}
		out = append(out, text)
	}
	return out
}

// childList names an entity's children in at most width cells, saying how
// many did not fit rather than cutting a handle in half.
func childList(kids []protocol.EntityID, width int) string {
	out := fmt.Sprintf("children (%d):", len(kids))
	for i, k := range kids {
		next := out + " " + k.String()
		more := fmt.Sprintf(" … +%d more", len(kids)-i-1)
		if i == len(kids)-1 {
			more = ""
		}
		if len(next)+len(more) > width && i > 0 {
			return out + fmt.Sprintf(" … +%d more", len(kids)-i)
		}
		out = next
	}
	return out
}

func (m *model) detailKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	var lines []detailLine
	if m.detail != nil {
		lines = m.detailLines(m.detail)
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		if n := len(m.trail); n > 0 { // back along the references followed
			e := m.trail[n-1]
			m.trail = m.trail[:n-1]
			return m, m.showEntity(e)
		}
		return m, m.leaveDetail()
	case key.Matches(msg, k.Parent) && m.detail != nil && m.play == nil:
		// Set or clear the parent: the palette, prefilled.
		return m, m.openPalette("parent " + m.detail.Entity.String() + " ")
	case key.Matches(msg, k.Tree) && m.detail != nil:
		return m, m.openTree(m.detail.Entity)
	case key.Matches(msg, k.ToParent) && m.detail != nil:
		if m.detail.Parent == 0 {
			m.setFlash(m.detail.Entity.String()+" has no parent", true)
			return m, nil
		}
		return m, m.followEntity(m.detail.Parent)
	case key.Matches(msg, k.Enter):
		if m.detailLine < len(lines) {
			l := lines[m.detailLine]
			if f := m.fieldAt(l.path); (f != nil && f.Kind == "entity" || l.path == "ChildOf.Parent") && l.value.Uint() != 0 {
				return m, m.followEntity(protocol.EntityID(l.value.Uint()))
			}
		}
		m.setFlash("enter follows an entity field; u opens the parent", false)
	case key.Matches(msg, k.Up):
		m.detailLine--
	case key.Matches(msg, k.Down):
		m.detailLine++
	case key.Matches(msg, k.Edit):
		if m.readOnly {
			m.setFlash("read-only agent: editing is off", true)
			return m, nil
		}
		if m.detailLine < len(lines) && lines[m.detailLine].path != "" {
			l := lines[m.detailLine]
			v := l.value.String()
			if t := strings.SplitN(l.text, " = ", 2); len(t) == 2 && strings.Contains(t[1], "v") && !strings.ContainsAny(t[1], "\"{[") {
				v = t[1] // an entity shown as 42v3: edit it as such
			}
			return m, m.openPrompt(m.editPrompt(l.path), v)
		}
		m.setFlash("move to a field to edit it", true)
	case key.Matches(msg, k.Add):
		if m.detail != nil && m.detail.Alive {
			return m, m.openForm(false)
		}
	case key.Matches(msg, k.Remove):
		if m.detailLine < len(lines) && !m.readOnly {
			comp, e := lines[m.detailLine].component, m.detail.Entity
			m.confirm = fmt.Sprintf("remove %s from %s?", comp, e)
			m.confirmYes = func() tea.Cmd {
				return m.src.request("remove "+comp, func(id uint32) protocol.Message {
					return &protocol.RemoveComponent{ID: id, Entity: e, Component: comp}
				})
			}
		}
	case key.Matches(msg, k.Despawn):
		if m.detail != nil && !m.readOnly {
			e := m.detail.Entity
			despawn := func(recursive bool) func() tea.Cmd {
				return func() tea.Cmd {
					return m.src.request("despawn", func(id uint32) protocol.Message {
						return &protocol.Despawn{ID: id, Entity: e, Recursive: recursive}
					})
				}
			}
			if n := len(m.detail.Children); n > 0 {
				// Offer both: the subtree, or the entity alone (its children orphaned).
				m.confirm = fmt.Sprintf("despawn %s and its %d children (y), or %s alone, its children orphaned (o)?", e, n, e)
				m.confirmYes, m.confirmAlt = despawn(true), despawn(false)
			} else {
				m.confirm = "despawn " + e.String() + "?"
				m.confirmYes = despawn(false)
			}
		}
	}
	return m, nil
}

// editPrompt sets one field of the detail's entity: what is typed is read
// as the field's kind, and refused here (the prompt stays) if it is not one.
func (m *model) editPrompt(path string) *prompt {
	e := m.detail.Entity
	return &prompt{kind: promptEdit, label: path + " = ", hint: "enter to set, esc to cancel",
		submit: func(text string) (tea.Cmd, string) {
			v := client.ParseInput(text)
			if f := m.fieldAt(path); f != nil && typedKinds[f.Kind] {
				typed, err := client.TypedInput(f.Kind, text)
				if err != nil {
					return nil, err.Error()
				}
				v = typed
			}
			return m.src.request("set "+path, func(id uint32) protocol.Message {
				return &protocol.SetField{ID: id, Entity: e, Path: path, Value: v}
			}), ""
		}}
}
