package ui

import (
	"fmt"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The resources pane: each resource on one line, the one under the cursor
// shown below a field a line; enter browses it as a tree (a struct's
// fields, a list's items, a map's entries, a page of them at a time from
// the agent), enter on a child opens it, on a handle follows it to its
// entity, and esc goes back up.

// subResourceFirst is the first id of the pane's page subscriptions: each
// place browsed takes the next, so frames of the last one are dropped.
const subResourceFirst uint32 = 3000

type (
	// resourceMsg is a page of a resource.
	resourceMsg struct{ p *protocol.ResourcePage }
)

type resourcesPane struct {
	*common
	box
	list               // the resource under the cursor, in the list
	walk *resourceWalk // browsing one resource; nil: the list
	sub  uint32
	heat *heatmap // m on a list of numbers: drawn as a grid; nil: none
	away bool     // another view is on screen: the heat map asks for nothing
}

// onScreen stops the heat map's asking while another view is shown, and
// asks at once when this one is back.
func (p *resourcesPane) onScreen(on bool) tea.Cmd {
	p.away = !on
	if h := p.heat; on && h != nil && h.asked == 0 {
		return h.ask(p.common)
	}
	return nil
}

// resourceWalk is where the pane browses: a path in a resource, the child
// under the cursor, the page the agent sent, and the way back.
type resourceWalk struct {
	name, path string
	pos        int // the child under the cursor, from 0
	offset     int // the first child of the window
	asked      int // the window's height as subscribed
	total      int // children in all, as the newest page said (kept while the next is on its way)
	page       *protocol.ResourcePage
	err        string
	trail      []resourceStop
	typeAhead  []tea.KeyMsg // keys typed while the page was on its way, replayed when it comes
}

// waiting reports whether the walk's page is on its way.
func (w *resourceWalk) waiting() bool { return w.page == nil && w.err == "" }

// resourceStop is a place the walk came from, to go back to.
type resourceStop struct {
	path               string
	pos, offset, total int
}

func (p *resourcesPane) Title() string { return "Resources" }

func (p *resourcesPane) SetSize(width, height int) tea.Cmd {
	p.box = box{width, height}
	if p.walk != nil && p.walk.asked != p.visible() {
		return p.subscribe()
	}
	return nil
}

func (p *resourcesPane) KeyMap() []key.Binding {
	if p.walk == nil {
		return p.keys.ShortHelp()
	}
	k := p.keys
	return []key.Binding{k.Up, k.Down, k.PageDown, k.Enter, k.Map, k.Back, k.Views, k.Help, k.Quit}
}

// visible is how many children the browser shows: the body less the
// path line and the header.
func (p *resourcesPane) visible() int { return max(p.height-3, 1) }

// subscribe asks for the window of children on screen, under a new id.
func (p *resourcesPane) subscribe() tea.Cmd {
	var unsub tea.Cmd
	if p.sub != 0 {
		unsub = p.src.unsubscribe(p.sub)
	}
	if p.walk == nil {
		p.sub = 0
		return unsub
	}
	p.sub = max(p.sub+1, subResourceFirst)
	w := p.walk
	w.asked, w.page, w.err = p.visible(), nil, ""
	return tea.Batch(unsub, p.src.subscribe(protocol.Subscribe{ID: p.sub, What: protocol.SubResource, Hz: 5,
		Resource: w.name, Path: w.path, Offset: w.offset, Limit: w.asked}))
}

func (p *resourcesPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case resourceMsg:
		if h := p.heat; h != nil && msg.p.Sub == h.asked {
			h.asked = 0
			h.take(msg.p)
			return nil
		}
		if p.walk != nil && msg.p.Sub == p.sub {
			p.walk.page, p.walk.err, p.walk.total = msg.p, "", msg.p.Total
			return p.replayTypeAhead()
		}
	case replyMsg:
		if p.walk != nil && !msg.r.OK && msg.r.ID == p.sub {
			p.walk.page, p.walk.err = nil, msg.r.Message
		}
		if h := p.heat; h != nil && !msg.r.OK && msg.r.ID == h.asked {
			h.asked, h.err = 0, msg.r.Message
		}
	case summaryMsg: // the game moved on: the grid again, once a second
		if h := p.heat; h != nil && !p.away && h.asked == 0 && h.err == "" && time.Since(h.at) >= heatEvery {
			return h.ask(p.common)
		}
	case tea.KeyMsg:
		if p.heat != nil {
			if key.Matches(msg, p.keys.Back, p.keys.Map) {
				p.heat = nil
			}
			return nil
		}
		if w := p.walk; w != nil {
			if w.waiting() && !key.Matches(msg, p.keys.Back) {
				if len(w.typeAhead) < maxTypeAhead {
					w.typeAhead = append(w.typeAhead, msg)
				}
				return nil
			}
			w.typeAhead = nil
			return p.browseKey(msg)
		}
		if p.summary == nil || len(p.summary.Resources) == 0 {
			return nil
		}
		if key.Matches(msg, p.keys.Enter) {
			p.walk = &resourceWalk{name: p.summary.Resources[p.cursor].Name}
			return p.subscribe()
		}
		p.move(p.keys, msg, len(p.summary.Resources), p.listHeight())
	}
	return nil
}

// replayTypeAhead runs the keys typed while the page was on its way; one
// that asks for another page keeps the rest for that page.
func (p *resourcesPane) replayTypeAhead() tea.Cmd {
	w := p.walk
	keys := w.typeAhead
	w.typeAhead = nil
	var cmds []tea.Cmd
	for i, k := range keys {
		if p.walk != w || w.waiting() {
			if p.walk == w {
				w.typeAhead = append(w.typeAhead, keys[i:]...)
			}
			break
		}
		cmds = append(cmds, p.browseKey(k))
	}
	return tea.Batch(cmds...)
}

// browse opens the value at path in resource name: its parent's children,
// the cursor on it when it is a list's item; esc climbs the path.
func (p *resourcesPane) browse(name, path string) tea.Cmd {
	steps, err := protocol.ParsePath(path)
	if err != nil {
		steps = nil
	}
	w := &resourceWalk{name: name}
	at := ""
	for i, st := range steps {
		key := st.Name
		if st.Keyed {
			key = st.Key
		}
		if i == len(steps)-1 { // the place itself: the cursor on it
			if n, err := strconv.Atoi(key); err == nil && st.Keyed {
				w.pos = n
				w.offset = max(n-p.visible()/2, 0)
			}
			break
		}
		w.trail = append(w.trail, resourceStop{path: at})
		at = protocol.ChildPath(at, key, st.Keyed)
	}
	w.path, w.total = at, w.pos+1
	p.walk = w
	return p.subscribe()
}

// browseKey moves through the children (paging the agent's window),
// opens one, follows a handle, or goes back up.
func (p *resourcesPane) browseKey(msg tea.KeyMsg) tea.Cmd {
	k, w := p.keys, p.walk
	total, pos := w.total, w.pos
	switch {
	case key.Matches(msg, k.Back):
		return p.back()
	case key.Matches(msg, k.Enter):
		return p.open()
	case key.Matches(msg, k.Map):
		return p.heatMap()
	case key.Matches(msg, k.Up):
		pos--
	case key.Matches(msg, k.Down):
		pos++
	case key.Matches(msg, k.PageUp):
		pos -= p.visible()
	case key.Matches(msg, k.PageDown):
		pos += p.visible()
	case key.Matches(msg, k.Top):
		pos = 0
	case key.Matches(msg, k.Bottom):
		pos = total - 1
	default:
		return nil
	}
	w.pos = max(min(pos, total-1), 0)
	offset := w.offset
	if w.pos < offset {
		offset = w.pos
	} else if w.pos >= offset+p.visible() {
		offset = w.pos - p.visible() + 1
	}
	if offset != w.offset {
		w.offset = offset
		return p.subscribe()
	}
	return nil
}

// open goes into the child under the cursor, or follows it to its entity.
func (p *resourcesPane) open() tea.Cmd {
	w := p.walk
	it, i, ok := p.selectedItem()
	if !ok {
		return nil
	}
	switch {
	case it.Kind == "entity":
		e := protocol.EntityID(it.Value.Uint() | uint64(it.Value.Int()))
		if e == 0 {
			p.nav.flash("the zero handle names no entity", true)
			return nil
		}
		return p.nav.followEntity(e)
	case protocol.HasChildren(it.Kind) && it.Len > 0:
		w.trail = append(w.trail, resourceStop{path: w.path, pos: w.pos, offset: w.offset, total: w.total})
		w.path, w.pos, w.offset, w.total = w.page.ItemPath(i), 0, 0, it.Len
		return p.subscribe()
	case protocol.HasChildren(it.Kind):
		p.nav.flash(it.Key+" is empty", false)
	}
	return nil
}

// heatMap draws the list of numbers under the cursor as a grid.
func (p *resourcesPane) heatMap() tea.Cmd {
	w := p.walk
	it, i, ok := p.selectedItem()
	if !ok {
		return nil
	}
	if it.Kind != "slice" && it.Kind != "array" {
		p.nav.flash("m draws a list of numbers as a heat map: "+it.Key+" is a "+it.Kind, true)
		return nil
	}
	width := gridWidth(it.Len, w.page.Items)
	if width == 0 {
		p.nav.flash(fmt.Sprintf("%s holds %d items: not a square, and no whole number beside it divides them into rows", it.Key, it.Len), true)
		return nil
	}
	p.heat = &heatmap{name: w.name, path: w.page.ItemPath(i), width: width}
	return p.heat.ask(p.common)
}

// back goes up to where the walk came from, or to the list from its top.
func (p *resourcesPane) back() tea.Cmd {
	w := p.walk
	if len(w.trail) == 0 {
		p.walk = nil
		return p.subscribe()
	}
	st := w.trail[len(w.trail)-1]
	w.trail = w.trail[:len(w.trail)-1]
	w.path, w.pos, w.offset, w.total = st.path, st.pos, st.offset, st.total
	return p.subscribe()
}

// selectedItem is the child under the cursor, if the page holds it.
func (p *resourcesPane) selectedItem() (protocol.ResourceItem, int, bool) {
	w := p.walk
	if w.page == nil {
		return protocol.ResourceItem{}, 0, false
	}
	i := w.pos - w.page.Offset
	if i < 0 || i >= len(w.page.Items) {
		return protocol.ResourceItem{}, 0, false
	}
	return w.page.Items[i], i, true
}

// listHeight is the rows the list takes: all of them, header included, up
// to half the pane; the selected resource's fields have the rest.
func (p *resourcesPane) listHeight() int {
	n := 0
	if p.summary != nil {
		n = len(p.summary.Resources)
	}
	return max(min(n+1, p.height/2), 2)
}

func (p *resourcesPane) View() []string {
	if p.heat != nil {
		return p.heat.view(p.common, p.width, p.height)
	}
	if p.walk != nil {
		return p.browseView()
	}
	if p.summary == nil || len(p.summary.Resources) == 0 {
		return []string{"no resources"}
	}
	rs := p.summary.Resources
	rows := make([]string, 0, len(rs))
	for i := range rs {
		rows = append(rows, fmt.Sprintf("%-20s %s", rs[i].Name, shortAs(rs[i].Value, rs[i].Schema())))
	}
	p.clamp(len(rows))
	out := p.draw(p.styles, box{p.width, p.listHeight()}, fmt.Sprintf("%-20s %s", "resource", "value   (enter browses)"), rows)
	room := p.height - len(out) - 2 // a blank line and the title
	if room < 1 {
		return out
	}
	r := &rs[p.cursor]
	fields := appendFields(nil, r.Name, r.Name, r.Value, r.Schema(), 1)
	out = append(out, "", p.styles.Title.Render(r.Name))
	if len(fields) == 0 { // a value that is not a struct
		return append(out, "  "+shortAs(r.Value, r.Schema()))
	}
	for i, f := range fields {
		if i == room-1 && len(fields) > room {
			return append(out, p.styles.Faint.Render(fmt.Sprintf("  … %d more lines (enter browses)", len(fields)-i)))
		}
		out = append(out, fit(f.text, p.width))
	}
	return out
}

// browseView draws the place browsed: its path and size, then its
// children, a line each.
func (p *resourcesPane) browseView() []string {
	w := p.walk
	where := w.name
	if w.path != "" {
		if w.path[0] != '[' {
			where += "."
		}
		where += w.path
	}
	switch {
	case w.err != "":
		return append([]string{p.styles.Title.Render(where)}, p.wrapIn(p.styles.Error, w.err, "esc goes back")...)
	case w.page == nil:
		return []string{p.styles.Title.Render(where), p.styles.Faint.Render("waiting for the agent…")}
	}
	pg := w.page
	title := fmt.Sprintf("%s   %s %s", where, pg.Kind, pg.GoType)
	if !protocol.HasChildren(pg.Kind) {
		out := []string{p.styles.Title.Render(fit(title, p.width)), "  " + shortAs(pg.Value, pg.Schema)}
		if pg.Written != nil {
			out = append(out, p.styles.Faint.Render(fit("  "+writtenText(pg.Written), p.width)))
		}
		return out
	}
	title += fmt.Sprintf(", %d %s", pg.Total, childrenWord(pg.Kind))
	if pg.Total > len(pg.Items) {
		title += fmt.Sprintf(" (%d-%d shown)", pg.Offset, pg.Offset+len(pg.Items))
	}
	if pg.Unordered {
		title += ", in Go's map order"
	}
	keyWidth := 4
	for _, it := range pg.Items {
		keyWidth = max(keyWidth, min(len(it.Key), 24))
	}
	rows := make([]string, len(pg.Items))
	for i, it := range pg.Items {
		rows[i] = fmt.Sprintf("%-*s %s", keyWidth, it.Key, itemText(it, protocol.ChildSchema(pg.Schema, it.Key)))
		if it.Written != nil {
			rows[i] += "   " + writtenText(it.Written)
		}
	}
	l := list{cursor: w.pos - pg.Offset}
	out := []string{p.styles.Title.Render(fit(title, p.width))}
	if len(rows) == 0 {
		return append(out, p.styles.Faint.Render("  empty"))
	}
	header := fmt.Sprintf("%-*s %s", keyWidth, keyWord(pg.Kind), "value   (enter opens, or follows a handle; esc goes up)")
	return append(out, l.draw(p.styles, box{p.width, p.height - 1}, header, rows)...)
}

// writtenText says who last changed a resource's value, as the agent saw
// it change.
func writtenText(w *protocol.Provenance) string {
	return fmt.Sprintf("written at tick %d by %s", w.Tick, w.By)
}

// itemText is a child in one line: a handle with an arrow to follow it,
// a list or map with its size before a preview, the rest as it prints.
func itemText(it protocol.ResourceItem, s *protocol.FieldSchema) string {
	switch {
	case it.Kind == "entity" && it.Value.Uint()|uint64(it.Value.Int()) != 0:
		return shortAs(it.Value, s) + " →"
	case it.Kind == "slice" || it.Kind == "array":
		return fmt.Sprintf("[%d] %s", it.Len, shortAs(it.Value, s))
	case it.Kind == "map":
		return fmt.Sprintf("{%d} %s", it.Len, shortAs(it.Value, s))
	}
	return shortAs(it.Value, s)
}

// childrenWord names a kind's children.
func childrenWord(kind string) string {
	switch kind {
	case "struct":
		return "fields"
	case "map":
		return "entries"
	}
	return "items"
}

// keyWord heads the key column.
func keyWord(kind string) string {
	switch kind {
	case "struct":
		return "field"
	case "map":
		return "key"
	}
	return "#"
}
