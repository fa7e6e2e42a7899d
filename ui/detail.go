package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// detailLine is one line of the entity detail: a component or a field.
type detailLine struct {
	text      string
	path      string // "Position.X" for an editable field
	component string // the component the line belongs to
	value     protocol.Value
}

// detailPane is one entity: its components field by field (values that
// changed lit for a moment), its parent and children, and the way here
// (the trail of references followed, walked back with esc). A despawned
// entity stays on screen, greyed, as it was last seen.
type detailPane struct {
	*common
	box
	shown     bool
	detail    *protocol.Detail
	prev      map[string]string    // field path -> value, for highlighting changes
	changedAt map[string]time.Time // field path -> when it changed
	line      int                  // the line under the cursor
	trail     []protocol.EntityID  // the back stack: entities left by following references
	lastAlive *protocol.Detail     // the entity as last seen alive
}

func (p *detailPane) Title() string { return "Entity" }

func (p *detailPane) KeyMap() []key.Binding {
	k := p.keys
	if p.play != nil {
		return []key.Binding{k.Enter, k.ToParent, k.Tree, k.Holders, k.Back, k.Open, k.Help}
	}
	return []key.Binding{k.Enter, k.ToParent, k.Tree, k.Holders, k.Edit, k.Pin, k.Add, k.Remove, k.Despawn, k.Parent, k.Back, k.Help}
}

// open shows entity e, starting a new trail of followed references.
func (p *detailPane) open(e protocol.EntityID) tea.Cmd {
	p.trail = nil
	return p.show(e)
}

// follow opens e from where the UI stands: from an open detail the entity
// shown goes on the trail, so esc comes back to it.
func (p *detailPane) follow(e protocol.EntityID) tea.Cmd {
	if p.shown && p.detail != nil && p.detail.Entity != e {
		p.trail = append(p.trail, p.detail.Entity)
	} else if !p.shown {
		p.trail = nil
	}
	return p.show(e)
}

// close closes the detail (and its trail), if open.
func (p *detailPane) close() tea.Cmd {
	if !p.shown {
		return nil
	}
	p.shown, p.trail = false, nil
	return p.src.unsubscribe(subDetail)
}

func (p *detailPane) show(e protocol.EntityID) tea.Cmd {
	p.shown, p.line, p.detail = true, 0, nil
	p.prev = map[string]string{}
	p.changedAt = map[string]time.Time{}
	return p.src.subscribe(protocol.Subscribe{ID: subDetail, What: protocol.SubEntity, Entity: e, Hz: 10})
}

// Update takes the entity's frames, and keys while on screen.
func (p *detailPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case detailMsg:
		if msg.d.Sub == subDetail && p.shown {
			p.set(msg.d)
		}
	case tea.KeyMsg:
		return p.key(msg)
	}
	return nil
}

// set takes a new frame of the entity, noting which values changed.
func (p *detailPane) set(d *protocol.Detail) {
	now := time.Now()
	seen := map[string]string{}
	for _, l := range p.lines(d) {
		if l.path == "" {
			continue
		}
		v := l.value.String()
		if old, ok := p.prev[l.path]; ok && old != v {
			p.changedAt[l.path] = now
		}
		seen[l.path] = v
	}
	p.prev = seen
	p.keepLine(d)
	p.detail = d
	if d.Alive {
		p.lastAlive = d
	}
}

// keepLine keeps the cursor on the line it was on (the same field, or the
// same component's header) when a new frame adds or removes lines above
// it: a component added or removed does not move it to another field,
// where x would offer to remove the wrong component.
func (p *detailPane) keepLine(d *protocol.Detail) {
	if p.detail == nil || p.detail.Entity != d.Entity {
		return
	}
	old := p.lines(p.detail)
	if p.line >= len(old) {
		return
	}
	at := old[p.line]
	next := p.lines(d)
	for i, l := range next {
		same := l.text == at.text // a line of no component: the parent, the children
		switch {
		case at.path != "":
			same = l.path == at.path
		case at.component != "": // a component's header: its provenance note changes
			same = l.path == "" && l.component == at.component
		}
		if same {
			p.line = i
			return
		}
	}
}

// despawnNote says when and by whom e was despawned, from the journal.
func (p *detailPane) despawnNote(e protocol.EntityID) string {
	for i := len(p.journal) - 1; i >= 0; i-- {
		if j := p.journal[i]; j.Entity == e && j.Op == "despawn" {
			return fmt.Sprintf("despawned at tick %d by %s", j.Frame, j.System)
		}
	}
	return ""
}

// lines flattens the entity's components into lines, fields as a tree.
func (p *detailPane) lines(d *protocol.Detail) []detailLine {
	var out []detailLine
	for _, c := range d.Components {
		out = append(out, detailLine{text: c.Component + provenanceNote(c, p.summary), component: c.Component})
		s := &protocol.FieldSchema{Kind: "struct"}
		if p.summary != nil {
			for _, sc := range p.summary.Components {
				if sc.Short == c.Component {
					s.Fields = sc.Fields
				}
			}
		}
		out = appendFields(out, c.Component, c.Component, c.Value, s, 1)
	}
	return out
}

// appendFields adds a line per field of v (a struct, a map, a list), whose
// schema is s, nested values indented under their names; handles print as
// handles wherever the schema says they are.
func appendFields(out []detailLine, comp, path string, v protocol.Value, s *protocol.FieldSchema, depth int) []detailLine {
	indent := strings.Repeat("  ", depth)
	switch v.Kind() {
	case protocol.KindMap:
		for i := range v.Len() {
			name, fv := v.Entry(i)
			p := path + "." + name
			f := protocol.ChildSchema(s, name)
			shownName := printable.Text(name) // a map's keys are the game's strings
			if fv.Kind() == protocol.KindMap || (fv.Kind() == protocol.KindList && fv.Len() <= 16) {
				out = append(out, detailLine{text: indent + shownName, component: comp})
				out = appendFields(out, comp, p, fv, f, depth+1)
				continue
			}
			out = append(out, detailLine{text: indent + shownName + " = " + shortAs(fv, f), path: p, component: comp, value: fv})
		}
	case protocol.KindList:
		elem := protocol.ChildSchema(s, "")
		for i := range v.Len() {
			p := fmt.Sprintf("%s[%d]", path, i)
			out = append(out, detailLine{text: fmt.Sprintf("%s[%d] = %s", indent, i, shortAs(v.Index(i), elem)), path: p, component: comp, value: v.Index(i)})
		}
	}
	return out
}

// View draws the entity, or what is known of it once despawned.
func (p *detailPane) View() []string {
	d := p.detail
	if d == nil {
		return []string{"loading entity…"}
	}
	if !d.Alive {
		out := []string{p.styles.Header.Render("Entity " + d.Entity.String() + "  DEAD")}
		if died := d.Died; died != nil { // the agent kept its last state
			out = append(out, p.styles.Error.Render(fmt.Sprintf("despawned at tick %d by %s", died.Tick, died.By)))
			rel := "its last state, as the despawn found it:"
			if d.Parent != 0 {
				rel = "child of " + d.Parent.String() + "; " + rel
			}
			out = append(out, p.styles.Faint.Render(rel))
			for _, l := range p.lines(d) {
				out = append(out, l.text)
			}
			return append(out, "", "esc to go back")
		}
		if note := p.despawnNote(d.Entity); note != "" {
			out = append(out, p.styles.Error.Render(note))
		} else {
			out = append(out, p.styles.Error.Render(d.Reason))
		}
		if last := p.lastAlive; last != nil && last.Entity == d.Entity {
			out = append(out, p.styles.Faint.Render(fmt.Sprintf("as it was last seen, at tick %d:", last.Tick)))
			for _, l := range p.lines(last) {
				out = append(out, p.styles.Faint.Render(l.text))
			}
		}
		return append(out, "", "esc to go back")
	}
	title := "Entity " + d.Entity.String()
	for i := len(p.trail) - 1; i >= 0; i-- { // the way here, newest first: esc walks it back
		title += " ← " + p.trail[i].String()
	}
	out := []string{
		p.styles.Header.Render(title),
		fmt.Sprintf("archetype %d row %d  generation %d (slot recycled %d times)", d.Archetype, d.Row, d.Entity.Generation(), d.Entity.Generation()-1),
	}
	rel := "parent: none"
	if d.Parent != 0 {
		rel = "parent: " + d.Parent.String()
	}
	if len(d.Children) > 0 {
		rel += "  " + handleList("children", d.Children, max(d.ChildCount, len(d.Children)), p.width-len(rel)-2)
	}
	out = append(out, rel)
	for _, h := range d.HeldBy { // the relations that point at it: a hive's bees
		out = append(out, handleList("held through "+h.Kind, h.Holders, max(h.Count, len(h.Holders)), p.width))
	}
	out = append(out, "")
	lines := p.lines(d)
	p.line = max(min(p.line, len(lines)-1), 0)
	lo, hi := window(p.line, len(lines), p.height-len(out))
	for i := lo; i < hi; i++ {
		l := lines[i]
		text := l.text
		if l.path == "" {
			text = p.styles.Title.Render(text)
		} else if t, ok := p.changedAt[l.path]; ok && time.Since(t) < 1500*time.Millisecond {
			text = p.styles.Changed.Render(text)
		}
		if i == p.line {
			text = p.styles.Selected.Render(fit(text, p.width))
		}
		out = append(out, text)
	}
	return out
}

// handleList names entities (a parent's children, a target's holders) in
// at most width cells, saying how many did not fit rather than cutting a
// handle in half: "children (N): a b … +K more", kids the first of all.
func handleList(label string, kids []protocol.EntityID, all, width int) string {
	out := fmt.Sprintf("%s (%d):", label, all)
	for i, k := range kids {
		next := out + " " + k.String()
		more := fmt.Sprintf(" … +%d more", all-i-1)
		if i == all-1 {
			more = ""
		}
		if len(next)+len(more) > width && i > 0 {
			return out + fmt.Sprintf(" … +%d more", all-i)
		}
		out = next
	}
	if len(kids) < all {
		out += fmt.Sprintf(" … +%d more", all-len(kids))
	}
	return out
}

// key answers the detail's keys: back, follow, edit, add, remove,
// despawn, parent, the tree.
func (p *detailPane) key(msg tea.KeyMsg) tea.Cmd {
	var lines []detailLine
	if p.detail != nil {
		lines = p.lines(p.detail)
	}
	k := p.keys
	switch {
	case key.Matches(msg, k.Back):
		if n := len(p.trail); n > 0 { // back along the references followed
			e := p.trail[n-1]
			p.trail = p.trail[:n-1]
			return p.show(e)
		}
		return p.close()
	case key.Matches(msg, k.Parent) && p.detail != nil && p.play == nil:
		// Set or clear the parent: the palette, prefilled.
		return openPalette(p.common, "parent "+p.detail.Entity.String()+" ")
	case key.Matches(msg, k.Tree) && p.detail != nil:
		return p.nav.push(newTree(p.common, p.detail.Entity))
	case key.Matches(msg, k.ToParent) && p.detail != nil:
		if p.detail.Parent == 0 {
			p.nav.flash(p.detail.Entity.String()+" has no parent", true)
			return nil
		}
		return p.follow(p.detail.Parent)
	case key.Matches(msg, k.Holders) && p.detail != nil:
		// The entities whose relation points here, in the Entities view:
		// the first kind that does, as a query the user may edit there.
		if len(p.detail.HeldBy) == 0 {
			p.nav.flash("no relation points at "+p.detail.Entity.String(), true)
			return nil
		}
		h := p.detail.HeldBy[0]
		if len(p.detail.HeldBy) > 1 {
			p.nav.flash(fmt.Sprintf("held through %d kinds: listing %s (edit the query for another)", len(p.detail.HeldBy), h.Kind), false)
		}
		return p.nav.listQuery(h.Kind + "(" + p.detail.Entity.String() + ")")
	case key.Matches(msg, k.Enter):
		if p.line < len(lines) {
			l := lines[p.line]
			if f := p.fieldAt(l.path); (f != nil && f.Kind == "entity" || l.path == "ChildOf.Parent") && l.value.Uint() != 0 {
				return p.follow(protocol.EntityID(l.value.Uint()))
			}
		}
		p.nav.flash("enter follows an entity field; u opens the parent", false)
	case key.Matches(msg, k.Pin) && p.detail != nil:
		if p.line < len(lines) && lines[p.line].path != "" {
			if _, isNumber := lines[p.line].value.Number(); isNumber {
				return p.nav.pin(p.detail.Entity.String() + " " + lines[p.line].path)
			}
		}
		p.nav.flash("move to a numeric field to pin it to the chart", true)
	case key.Matches(msg, k.Up):
		p.line--
	case key.Matches(msg, k.Down):
		p.line++
	case key.Matches(msg, k.Edit):
		if p.readOnly {
			p.nav.flash("read-only agent: editing is off", true)
			return nil
		}
		if p.line < len(lines) && lines[p.line].path != "" {
			l := lines[p.line]
			v := l.value.String()
			if t := strings.SplitN(l.text, " = ", 2); len(t) == 2 && strings.Contains(t[1], "v") && !strings.ContainsAny(t[1], "\"{[") {
				v = t[1] // an entity shown as 42v3: edit it as such
			}
			return p.nav.push(p.editPrompt(l.path, v))
		}
		p.nav.flash("move to a field to edit it", true)
	case key.Matches(msg, k.Add):
		if p.detail != nil && p.detail.Alive {
			return openForm(p.common, false, p.detail.Entity, p.detail.Components)
		}
	case key.Matches(msg, k.Remove):
		if p.line < len(lines) && !p.readOnly {
			comp, e := lines[p.line].component, p.detail.Entity
			return p.nav.push(&confirm{common: p.common, question: fmt.Sprintf("remove %s from %s?", comp, e), yes: func() tea.Cmd {
				return p.src.request("remove "+comp, func(id uint32) protocol.Message {
					return &protocol.RemoveComponent{ID: id, Entity: e, Component: comp}
				})
			}})
		}
	case key.Matches(msg, k.Despawn):
		if p.detail != nil && !p.readOnly {
			e := p.detail.Entity
			despawn := func(recursive bool) func() tea.Cmd {
				return func() tea.Cmd {
					return p.src.request("despawn", func(id uint32) protocol.Message {
						return &protocol.Despawn{ID: id, Entity: e, Recursive: recursive}
					})
				}
			}
			if n := max(p.detail.ChildCount, len(p.detail.Children)); n > 0 {
				// Offer both: the subtree, or the entity alone (its children orphaned).
				return p.nav.push(&confirm{common: p.common, question: fmt.Sprintf("despawn %s and its %d children (y), or %s alone, its children orphaned (o)?", e, n, e),
					yes: despawn(true), alt: despawn(false)})
			}
			return p.nav.push(&confirm{common: p.common, question: "despawn " + e.String() + "?", yes: despawn(false)})
		}
	}
	return nil
}

// editPrompt sets one field of the detail's entity: what is typed is read
// as the field's kind, and refused here (the prompt stays) if it is not one.
func (p *detailPane) editPrompt(path, text string) *prompt {
	e := p.detail.Entity
	return newPrompt(p.common, promptEdit, path+" = ", "enter to set, esc to cancel", text,
		func(text string) (tea.Cmd, string) {
			v := client.ParseInput(text)
			if f := p.fieldAt(path); f != nil && typedKinds[f.Kind] {
				typed, err := client.TypedInput(f.Kind, text)
				if err != nil {
					return nil, err.Error()
				}
				v = typed
			}
			return p.src.request("set "+path, func(id uint32) protocol.Message {
				return &protocol.SetField{ID: id, Entity: e, Path: path, Value: v}
			}), ""
		})
}

// provenanceNote says who wrote a component's value and who added it, as
// the agent knows (client.WriterNote), in brackets; a write of the frame
// stopped at it, "written by grazing in frame 41, after system 4 of 11:
// the frame stopped here".
func provenanceNote(c protocol.ComponentValue, s *protocol.Summary) string {
	var written string
	if w := c.Written; w != nil && s != nil && s.Halt != nil && s.Tick == w.Tick && s.Halt.System == w.By {
		written = fmt.Sprintf("written by %s in frame %d, %s: the frame stopped here", w.By, w.Tick, haltWhere(s.Halt))
	}
	note := client.WriterNoteWith(c, written)
	if note == "" {
		return ""
	}
	return "  (" + note + ")"
}
