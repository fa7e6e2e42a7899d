package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
	"github.com/ecsinspect/ecsinspect/protocol/query"
)

// entitiesPane is a query's or an archetype's entities as a table (the
// table is table.go). The agent sends only the window on screen; each
// query, archetype or sort is a subscription of its own.
type entitiesPane struct {
	*common
	box
	page      *protocol.Page
	sub       uint32 // the page subscription: one per query, archetype and sort
	subKey    string // the archetype, query and sort sub answers
	err       string // the agent refused the query: shown in place of rows
	query     string
	arch      int64 // limited to an archetype (1 + id), 0 for none
	offset    int   // the first row of the window
	cursor    int   // the row under the cursor, in the window
	colCursor int   // the column under the cursor
	colFirst  int   // the first field column shown (sideways scroll)
	sortBy    string
	selected  protocol.EntityID // the entity under the cursor: kept there while rows move
	lost      protocol.EntityID // the entity the cursor was on when it left the window
	lostID    uint32            // the request asking whether lost is alive
	lostNote  string            // what became of it, once known
	// typeAhead holds the keys pressed while a new list's first page was
	// on its way (a new filter, archetype or sort): they act on that page
	// when it comes, as typed, never on nothing.
	typeAhead []tea.KeyMsg
	// asked is the window's height as last subscribed; refilled, when a
	// short window was last asked for again.
	asked    int
	refilled time.Time
	// mapView is the map of the filter's entities (m), shown in place of
	// the rows while on.
	mapView spatial
	// away is set while another view is on screen: the list takes no
	// pages (onScreen).
	away  bool
	drawn struct { // the table as last drawn, and what it showed
		key   string
		lines []string
	}
}

// maxTypeAhead bounds the keys kept while a page is on its way.
const maxTypeAhead = 32

// onScreen ends the list's and the map's subscriptions while another
// view is shown (their pages and grids would cost the game, and the UI's
// decoding and redraws, for nobody), and starts them again on return: the
// last page stays on screen until the next comes.
func (p *entitiesPane) onScreen(on bool) tea.Cmd {
	p.away = !on
	mapOn := p.mapView.on && p.mapView.common != nil
	if !on {
		cmds := []tea.Cmd{p.src.unsubscribe(p.sub)}
		if mapOn {
			cmds = append(cmds, p.src.unsubscribe(subPoints))
		}
		return tea.Batch(cmds...)
	}
	cmds := []tea.Cmd{p.subscribe()}
	if mapOn {
		cmds = append(cmds, p.mapView.subscribe())
	}
	return tea.Batch(cmds...)
}

// waiting reports whether the list's first page has not come yet.

func (p *entitiesPane) waiting() bool { return p.sub != 0 && p.page == nil && p.err == "" }

func (p *entitiesPane) Title() string { return "Entities" }

func (p *entitiesPane) KeyMap() []key.Binding {
	k := p.keys
	if p.mapView.on {
		return []key.Binding{k.Enter, k.Filter, k.Map, k.Up, k.Down, k.Pause, k.Help, k.Quit}
	}
	return []key.Binding{k.Enter, k.Filter, k.Sort, k.Left, k.Right, k.Open, k.Pause, k.Help, k.Quit}
}

// SetSize asks the agent for a window of the new height.
func (p *entitiesPane) SetSize(width, height int) tea.Cmd {
	p.box = box{width, height}
	p.mapView.box = p.box
	return tea.Batch(p.subscribe(), p.mapView.subscribe())
}

// visible is how many rows the window holds: the title and the column
// names take two lines, the note on a lost entity one more.
func (p *entitiesPane) visible() int { return max(p.height-3, 1) }

// short reports whether the page holds fewer rows than the window asked
// for while more entities match past them.
func (p *entitiesPane) short() bool {
	n := len(p.page.Rows)
	return n < p.asked && p.page.Offset+n < p.page.Total
}

// show lists a query's or an archetype's entities from the top.
func (p *entitiesPane) show(query string, arch int64) tea.Cmd {
	p.query, p.arch, p.offset, p.cursor = query, arch, 0, 0
	// A new list starts at its top: the entity the cursor was on in the
	// old one is not "lost" from it.
	p.selected, p.lost, p.lostID, p.lostNote = 0, 0, 0, ""
	p.typeAhead = nil
	return tea.Batch(p.subscribe(), p.mapView.subscribe())
}

// subscribe (re)subscribes the window for what is on screen. A new query,
// archetype or sort is a new subscription, with an id of its own: frames
// of the old one still on their way are dropped, and until the first
// frame of the new one arrives the pane says it is waiting, never showing
// the old rows under the new title.
func (p *entitiesPane) subscribe() tea.Cmd {
	var unsub tea.Cmd
	if key := fmt.Sprintf("%d %s %s", p.arch, p.query, p.sortBy); key != p.subKey || p.sub == 0 {
		if p.sub != 0 {
			unsub = p.src.unsubscribe(p.sub)
		}
		p.subKey, p.page, p.err = key, nil, ""
		p.sub = max(p.sub+1, subPageFirst)
	}
	sort := p.sortBy
	if p.arch != 0 {
		sort = ""
	}
	if p.away { // subscribed when the view comes on screen (onScreen)
		return unsub
	}
	p.asked = p.visible()
	sub := p.src.subscribe(protocol.Subscribe{ID: p.sub, What: protocol.SubPage, Hz: 5, Query: p.query,
		Archetype: p.arch, Offset: p.offset, Limit: p.asked, Sort: sort})
	return tea.Batch(unsub, sub)
}

// Update takes the window's frames, a refusal, the answer on a lost
// entity, and keys while on screen.
func (p *entitiesPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pointsMsg:
		return p.mapView.Update(msg)
	case watchHitMsg:
		return p.mapView.mark(p.mapView.opened, msg.h.Entity)
	case pageMsg:
		if msg.p.Sub == p.mapView.asked && p.mapView.asked != 0 { // an entity in the map's cursor cell
			p.mapView.asked = 0
			if len(msg.p.Rows) == 0 {
				p.nav.flash("no entity in that cell now", false)
				return nil
			}
			return p.nav.openEntity(msg.p.Rows[0].Entity)
		}
		if msg.p.Sub != p.sub {
			return nil // a frame of a query no longer shown
		}
		p.page, p.err = msg.p, ""
		cmd := p.keepSelection()
		if p.page.Total > 0 && p.offset >= p.page.Total { // the list shrank under us
			p.offset = max(p.page.Total-1, 0)
			return tea.Batch(cmd, p.subscribe())
		}
		if p.short() && time.Since(p.refilled) > time.Second {
			// Fewer rows than the window holds though more match: the
			// agent answers an older window (its resize was lost on the
			// way, a reconnect raced it). Ask again, at most once a second.
			p.refilled = time.Now()
			return tea.Batch(cmd, p.subscribe())
		}
		return tea.Batch(cmd, p.replayTypeAhead())
	case replyMsg:
		if cmd := p.mapView.Update(msg); cmd != nil {
			return cmd
		}
		if !msg.r.OK && msg.r.ID == p.sub { // the agent refused the page: say so in place
			p.page, p.err, p.typeAhead = nil, msg.r.Message, nil
		}
		if msg.r.ID == p.lostID && p.lostID != 0 { // a stale answer: the entity is gone
			p.lostNote = fmt.Sprintf("%s was despawned", p.lost)
		}
	case detailMsg:
		if msg.d.Sub != p.lostID || p.lostID == 0 {
			return p.mapView.mark(msg.d.Entity, p.mapView.hit)
		}
		if msg.d.Sub == p.lostID && p.lostID != 0 {
			if msg.d.Alive {
				p.lostNote = fmt.Sprintf("%s moved out of this window (or stopped matching)", p.lost)
			} else {
				p.lostNote = fmt.Sprintf("%s was despawned", p.lost)
			}
		}
	case tea.KeyMsg:
		if p.waiting() && !key.Matches(msg, p.keys.Back) {
			if len(p.typeAhead) < maxTypeAhead {
				p.typeAhead = append(p.typeAhead, msg)
			}
			return nil
		}
		p.typeAhead = nil
		return p.key(msg)
	}
	return nil
}

// replayTypeAhead runs the keys typed while the page was on its way; one
// that starts a new list (a sort) keeps the rest for that list's page.
func (p *entitiesPane) replayTypeAhead() tea.Cmd {
	keys := p.typeAhead
	p.typeAhead = nil
	var cmds []tea.Cmd
	for i, k := range keys {
		if p.waiting() {
			p.typeAhead = append(p.typeAhead, keys[i:]...)
			break
		}
		cmds = append(cmds, p.key(k))
	}
	return tea.Batch(cmds...)
}

// key moves the cursor through the matches (paging the agent's window),
// opens an entity, moves between columns, sorts, and goes back.
func (p *entitiesPane) key(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	if key.Matches(msg, k.Map) {
		p.mapView.common, p.mapView.query = p.common, func() string { return p.query }
		return p.mapView.toggle()
	}
	if p.mapView.on && !key.Matches(msg, k.Filter, k.Back) {
		return p.mapView.key(msg)
	}
	visible := p.visible()
	total := 0
	if p.page != nil {
		total = p.page.Total
	}
	pos := p.offset + p.cursor
	switch {
	case key.Matches(msg, k.Back):
		if p.arch != 0 { // back to the archetypes it came from
			cmd := p.show("", 0)
			return tea.Batch(cmd, p.nav.showPane(viewArchetypes))
		}
		if p.query != "" {
			return p.show("", 0)
		}
		return nil
	case key.Matches(msg, k.Up):
		pos--
	case key.Matches(msg, k.Down):
		pos++
	case key.Matches(msg, k.PageUp):
		pos -= visible
	case key.Matches(msg, k.PageDown):
		pos += visible
	case key.Matches(msg, k.Top):
		pos = 0
	case key.Matches(msg, k.Bottom):
		pos = total - 1
	case key.Matches(msg, k.Enter):
		if p.page != nil && p.cursor < len(p.page.Rows) {
			return p.nav.openEntity(p.page.Rows[p.cursor].Entity)
		}
		return nil
	case key.Matches(msg, k.Left):
		p.colCursor = max(p.colCursor-1, 0)
		return nil
	case key.Matches(msg, k.Right):
		if p.page != nil {
			p.colCursor = min(p.colCursor+1, max(len(p.tableColumns(p.page))-1, 0))
		}
		return nil
	case key.Matches(msg, k.Sort):
		by, err := p.sortColumn()
		if err != nil {
			p.nav.flash(err.Error(), true)
			return nil
		}
		p.sortBy, p.offset = by, 0
		return p.subscribe()
	default:
		return nil
	}
	p.lost, p.lostID, p.lostNote = 0, 0, ""
	pos = max(min(pos, total-1), 0)
	offset := p.offset
	if pos < offset {
		offset = pos
	} else if pos >= offset+visible {
		offset = pos - visible + 1
	}
	p.cursor = pos - offset
	p.selected = 0
	if p.page != nil && pos-offset < len(p.page.Rows) && offset == p.offset {
		p.selected = p.page.Rows[pos-offset].Entity
	}
	if offset != p.offset {
		p.offset = offset
		return p.subscribe()
	}
	return nil
}

// filterPrompt is the query prompt: checked as typed, applied by the agent
// on enter.
func (p *entitiesPane) filterPrompt() *prompt {
	pr := newPrompt(p.common, promptFilter, "/", "enter applies, esc keeps the list", p.query,
		func(text string) (tea.Cmd, string) {
			q := strings.TrimSpace(text)
			if _, err := query.ParseQuery(q); err != nil {
				return nil, err.Error()
			}
			return p.show(q, 0), ""
		})
	pr.input.Placeholder = `Position !Fleeing Energy.Value<10`
	return pr.withCheck(func(text string) string {
		if _, err := query.ParseQuery(text); err != nil {
			return err.Error() // the list keeps its last good result
		}
		return ""
	})
}

// keepSelection keeps the cursor on the entity it was on when a new page
// moves rows (sorting, spawns, despawns). If the entity left the window
// the cursor stays where it was, takes the entity now there, and the pane
// asks the agent what became of the one it lost, to say so.
func (p *entitiesPane) keepSelection() tea.Cmd {
	pg := p.page
	if pg == nil || len(pg.Rows) == 0 {
		return nil
	}
	if p.selected != 0 {
		for i, r := range pg.Rows {
			if r.Entity == p.selected {
				p.cursor = i
				return nil
			}
		}
	}
	var ask tea.Cmd
	if p.selected != 0 {
		lost := p.selected
		p.lost, p.lostNote = lost, ""
		ask = p.src.request("", func(id uint32) protocol.Message {
			p.lostID = id
			return &protocol.GetEntity{ID: id, Entity: lost}
		})
	}
	i := min(p.cursor, len(pg.Rows)-1)
	p.cursor = i
	p.selected = pg.Rows[i].Entity
	return ask
}

// View is the table, or why there is none yet.
func (p *entitiesPane) View() []string {
	if p.mapView.on {
		return p.mapView.View()
	}
	title := "all entities"
	switch {
	case p.arch > 0:
		title = fmt.Sprintf("archetype %d", p.arch-1)
	case p.query != "":
		title = p.query
	}
	if p.err != "" {
		out := p.box.wrapIn(p.styles.Header, title+" — 0 matches: the agent refused the query")
		out = append(out, p.box.wrapIn(p.styles.Error, p.err)...)
		return append(out, p.box.wrapIn(p.styles.Faint, "/ edits the query, esc clears it")...)
	}
	if p.page == nil {
		return []string{p.styles.Header.Render(title), p.styles.Faint.Render("waiting for the agent's first answer…")}
	}
	// The table is drawn again only when what it shows changed: the page
	// comes a few times a second, the screen is drawn on every message.
	ncomp := 0
	if p.summary != nil {
		ncomp = len(p.summary.Components)
	}
	key := fmt.Sprintf("%p %s %d %d %d %d %d %s %v %d", p.page, title, p.cursor, p.colCursor, p.colFirst, p.width, p.height, p.sortBy, p.selected, ncomp)
	if key != p.drawn.key {
		p.drawn.key, p.drawn.lines = key, p.tableLines(p.page, title)
	}
	out := slices.Clone(p.drawn.lines)
	if p.lost != 0 {
		note := fmt.Sprintf("the cursor's entity %s left the window: asking the agent…", p.lost)
		if p.lostNote != "" {
			note = p.lostNote + "; the cursor is on " + p.selected.String() + " now"
		}
		out = append(out, p.styles.Flash.Render(note))
	}
	return out
}
