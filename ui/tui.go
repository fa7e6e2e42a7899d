package ui

import (
	"fmt"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The panes, in the order of their number keys.
const (
	viewOverview = iota
	viewArchetypes
	viewEntities
	viewSystems
	viewEvents
	viewJournal
	viewResources
	viewWatches
	viewChart
	viewDangling
	viewCount
)

// model is the root of the UI: it owns the size, the pane on screen, the
// detail over it, the stack of modals, the flash line and the status bar,
// and routes each message. It knows the world only through the source.
type model struct {
	*common
	help help.Model

	width, height int
	// drawn is the screen View last drew, kept until a message other than
	// a tick comes, or a tick with no summary for longer than its period
	// (summaryAt: a live game's summaries redraw the screen several times
	// a second anyway, so what changes with time alone, a flash's 4 s or a
	// change's 1.5 s of highlight, is at most a summary late).
	drawn       string
	summaryAt   time.Time
	panes       [viewCount]pane
	view        int // the pane on screen
	entities    *entitiesPane
	journalPane *journalPane
	chart       *chartPane
	detail      *detailPane
	modals      []modal   // the top one has the keys
	timeline    *timeline // a review's position and keys, or nil for a live game

	flashText string
	flashErr  bool
	flashAt   time.Time
	flashHit  bool     // the flash is a watchpoint's hit (hitFlash)
	rate      tickRate // the game's real tick rate, from the summaries
	before    uint64   // the tick when the connection came back, until the next summary
	lastHit   *protocol.WatchHit
	helpLine  struct{ key, out string } // the bottom line's hints, as last drawn

	rec  *client.Recording // r: the recording running, or nil
	game client.Game       // the game attached to, for the recorder's own connection

	// fromFleet: the UI was opened from the Fleet view, and F goes back
	// to it (backToFleet says it was asked for).
	fromFleet, backToFleet bool
}

func newModel(src source, addr string) *model {
	c := &common{src: src, addr: addr, styles: DefaultStyles(), keys: defaultKeys()}
	m := &model{common: c, help: help.New(), view: viewOverview}
	if s, ok := src.(*session); ok {
		m.game = s.game
	}
	c.nav = m
	m.entities = &entitiesPane{common: c, away: m.view != viewEntities}
	m.journalPane = &journalPane{common: c}
	m.chart = &chartPane{common: c}
	m.detail = &detailPane{common: c}
	m.panes = [viewCount]pane{
		viewOverview:   &overviewPane{common: c},
		viewArchetypes: &archetypesPane{common: c},
		viewEntities:   m.entities,
		viewSystems:    &systemsPane{common: c},
		viewEvents:     &eventsPane{common: c},
		viewJournal:    m.journalPane,
		viewResources:  &resourcesPane{common: c},
		viewWatches:    &watchesPane{common: c},
		viewChart:      m.chart,
		viewDangling:   &danglingPane{common: c},
	}
	return m
}

// review makes the model a recording's player, at pos.
func (m *model) review(p *player, pos reviewPos) {
	m.play = p
	m.timeline = newTimeline(m.common, pos)
	m.conn = connMsg{state: stateConnected}
}

type tickMsg time.Time

func tick() tea.Cmd {
	return tea.Tick(tickEvery, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// summaryHz is the rate the UI asks the game's summary at: the numbers on
// screen change five times a second, faster than a person reads them,
// and each summary costs its decoding and a redraw (at ten a second, half
// the UI's time at rest).
const summaryHz = 5

// tickEvery is how often the screen is redrawn for what changes with time
// alone, while nothing else redraws it.
const tickEvery = 250 * time.Millisecond

func (m *model) Init() tea.Cmd {
	return tea.Batch(
		m.src.subscribe(protocol.Subscribe{ID: subSummary, What: protocol.SubSummary, Hz: summaryHz}),
		m.entities.subscribe(),
		tick(),
	)
}

// bodyHeight is the rows between the tab bar and the bottom two lines.
func (m *model) bodyHeight() int { return max(m.height-3, 1) }

// The navigator: what panes and modals ask of the root.

// flash shows s on the bottom line for a while; s may carry a game's or a
// file's words (errors do), so it is shown escaped.
func (m *model) flash(s string, isErr bool) {
	m.flashText, m.flashErr, m.flashAt, m.flashHit = printable.Text(s), isErr, time.Now(), false
}

// hitFlash flashes a watchpoint's hit, unless it only logs (the game goes
// on) and a flash of another kind came within flashHold: a rewind's replay
// or a step fires such hits right after the answer the person asked for,
// which they must get to read (the status bar names the newest hit either
// way). A hit that paused the game always shows.
func (m *model) hitFlash(s string, paused bool) {
	if !paused && m.flashText != "" && !m.flashHit && time.Since(m.flashAt) < flashHold {
		return
	}
	m.flash(s, true)
	m.flashHit = true
}

// flashHold is how long a flash stays before a watchpoint's hit may take
// its place.
const flashHold = 2 * time.Second

func (m *model) openEntity(e protocol.EntityID) tea.Cmd   { return m.detail.open(e) }
func (m *model) pin(expr string) tea.Cmd                  { return m.chart.add(expr) }
func (m *model) unpin(n int) tea.Cmd                      { return m.chart.remove(n - 1) }
func (m *model) followEntity(e protocol.EntityID) tea.Cmd { return m.detail.follow(e) }

func (m *model) showPane(v int) tea.Cmd {
	cmds := []tea.Cmd{m.detail.close()}
	if v != m.view {
		m.entities.typeAhead = nil // keys typed for a list no longer on screen
		if p, ok := m.panes[m.view].(onScreen); ok {
			cmds = append(cmds, p.onScreen(false))
		}
		if p, ok := m.panes[v].(onScreen); ok {
			cmds = append(cmds, p.onScreen(true))
		}
	}
	m.view = v
	return tea.Batch(cmds...)
}

// onScreen is a pane that takes its stream (the journal, the events) only
// while it is on screen: a stream nobody looks at costs the UI decoding
// and the agent encoding.
type onScreen interface {
	onScreen(on bool) tea.Cmd
}

// viewOfKey is the view a number key shows: 1 the first, 0 the tenth.
func viewOfKey(k string) int {
	if k == "0" {
		return 9
	}
	return int(k[0] - '1')
}

// viewKey is the number key of view v, as the tabs show it.
func viewKey(v int) int { return (v + 1) % 10 }

// browseResource shows the Resources view at the value at path in resource
// name: its parent's children, the cursor on it.
func (m *model) browseResource(name, path string) tea.Cmd {
	return tea.Batch(m.showPane(viewResources), m.panes[viewResources].(*resourcesPane).browse(name, path))
}

func (m *model) listArchetype(arch int64) tea.Cmd {
	return tea.Batch(m.showPane(viewEntities), m.entities.show("", arch))
}

func (m *model) listQuery(expr string) tea.Cmd {
	return tea.Batch(m.showPane(viewEntities), m.entities.show(expr, 0))
}

func (m *model) push(md modal) tea.Cmd {
	md.SetSize(m.width, m.bodyHeight())
	m.modals = append(m.modals, md)
	if in, ok := md.(interface{ Init() tea.Cmd }); ok {
		return in.Init()
	}
	return nil
}

// top is the modal with the keys, or nil.
func (m *model) top() modal {
	if n := len(m.modals); n > 0 {
		return m.modals[n-1]
	}
	return nil
}

// closeModal takes md off the stack (it may no longer be on top: its last
// key may have opened another).
func (m *model) closeModal(md modal) {
	m.modals = slices.DeleteFunc(m.modals, func(x modal) bool { return x == md })
}

// focused is the pane that has the keys when no modal does.
func (m *model) focused() pane {
	if m.detail.shown {
		return m.detail
	}
	return m.panes[m.view]
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ticked := msg.(tickMsg); !ticked || time.Since(m.summaryAt) > tickEvery {
		m.drawn = ""
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m, m.resize(msg.Width, msg.Height)
	case tickMsg:
		return m, tick()
	case tea.KeyMsg:
		return m, m.keyBurst(msg)
	case connMsg:
		if msg.state == stateConnected && m.conn.state == stateReconnecting && m.summary != nil {
			m.before = m.summary.Tick // the next summary tells a restart from a reconnect
		}
		if msg.state != stateConnected {
			m.rate = tickRate{} // what it was is no rate now
		}
		m.conn = msg
		if msg.welcome != nil {
			m.readOnly = msg.welcome.ReadOnly
		}
		if msg.state == stateClosed {
			m.flash(msg.err.Error(), true)
		}
		return m, nil
	case summaryMsg:
		if m.before != 0 && msg.s.Tick < m.before {
			m.flash(fmt.Sprintf("re-attached to a new run of the game: tick %d before, %d now (it restarted)", m.before, msg.s.Tick), true)
		}
		m.before = 0
		m.summary, m.summaryAt = msg.s, time.Now()
		m.rate.add(msg.s.Tick, time.Now())
	case eventsMsg:
		m.events = msg.e
	case recordingMsg:
		m.recording(msg)
		return m, nil
	case replyMsg:
		m.reply(msg)
	case watchHitMsg:
		m.lastHit = msg.h
		m.hitFlash("⚑ "+msg.h.Text+hitNote(msg.h), msg.h.Paused)
	}
	// Data for the panes and modals: each takes what is its own.
	var cmds []tea.Cmd
	if m.timeline != nil {
		cmd, _ := m.timeline.Update(msg)
		cmds = append(cmds, cmd)
	}
	for _, p := range m.panes {
		cmds = append(cmds, p.Update(msg))
	}
	cmds = append(cmds, m.detail.Update(msg))
	for _, md := range slices.Clone(m.modals) {
		cmd, done := md.Update(msg)
		if done {
			m.closeModal(md)
		}
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

// resize gives every pane and modal the body's new size.
func (m *model) resize(width, height int) tea.Cmd {
	m.width, m.height = width, height
	m.help.Width = width
	var cmds []tea.Cmd
	for _, p := range m.panes {
		cmds = append(cmds, p.SetSize(width, m.bodyHeight()))
	}
	cmds = append(cmds, m.detail.SetSize(width, m.bodyHeight()))
	for _, md := range m.modals {
		md.SetSize(width, m.bodyHeight())
	}
	if m.timeline != nil {
		m.timeline.SetSize(width, 1)
	}
	return tea.Batch(cmds...)
}

// reply says how a request went on the flash line (requests made quietly,
// with no name, are their asker's business).
func (m *model) reply(msg replyMsg) {
	switch {
	case msg.what == "":
	case msg.r.OK:
		text := msg.what + ": ok"
		if msg.r.Message != "" { // what the agent did, in its words (a rewind's tick)
			text = msg.what + ": " + msg.r.Message
		}
		if msg.r.Entity != 0 {
			text += " (" + msg.r.Entity.String() + ")"
		}
		m.flash(text, false)
	default:
		m.flash(msg.what+": "+msg.r.Message, true)
	}
}

// keyBurst applies a message that carries several runes (keys typed
// faster than the terminal reports them, key repeat over ssh) key by key,
// as if each had come alone; text typed or pasted into a prompt lands
// whole.
func (m *model) keyBurst(msg tea.KeyMsg) tea.Cmd {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.typing() {
		return m.key(msg)
	}
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		if m.typing() { // a key of the burst opened a prompt: the rest is its text
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[i:]}))
			break
		}
		cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

// typing reports whether a text input has the keys.
func (m *model) typing() bool {
	t, ok := m.top().(textTaker)
	return ok && t.takesText()
}

// key routes one key: Ctrl-C from anywhere, then the top modal, the
// review's timeline, the keys that work everywhere, and the pane on
// screen (the detail when open).
func (m *model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyCtrlC {
		return m.quit()
	}
	if md := m.top(); md != nil {
		cmd, done := md.Update(msg)
		if done {
			m.closeModal(md)
		}
		return cmd
	}
	if m.timeline != nil {
		if cmd, own := m.timeline.Update(msg); own {
			return cmd
		}
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Fleet) && m.fromFleet:
		m.backToFleet = true
		return m.quit()
	case key.Matches(msg, k.Help):
		return m.push(&helpScreen{common: m.common, groups: m.helpGroups(), title: m.focused().Title()})
	case key.Matches(msg, k.Pause):
		if m.summary != nil && m.summary.Paused {
			return m.src.request("resume", func(id uint32) protocol.Message { return &protocol.Resume{ID: id} })
		}
		return m.src.request("pause", func(id uint32) protocol.Message { return &protocol.Pause{ID: id} })
	case key.Matches(msg, k.Step):
		return m.src.request("step", func(id uint32) protocol.Message { return &protocol.Step{ID: id, N: 1} })
	case key.Matches(msg, k.Views):
		return m.showPane(viewOfKey(msg.String()))
	case key.Matches(msg, k.NextView):
		return m.showPane((m.view + 1) % viewCount)
	case key.Matches(msg, k.PrevView):
		return m.showPane((m.view + viewCount - 1) % viewCount)
	case key.Matches(msg, k.Palette):
		return openPalette(m.common, "")
	case key.Matches(msg, k.Open):
		return openPalette(m.common, "open ")
	case key.Matches(msg, k.Filter) && (m.view == viewJournal || m.view == viewWatches) && !m.detail.shown:
		return m.focused().Update(msg) // the pane's own filter: the journal's, the hits'
	case key.Matches(msg, k.Filter):
		return tea.Batch(m.showPane(viewEntities), m.push(m.entities.filterPrompt()))
	case key.Matches(msg, k.Record) && m.play == nil:
		return m.toggleRecording()
	case key.Matches(msg, k.Spawn):
		return openForm(m.common, true, 0, nil)
	case key.Matches(msg, k.Rewind) && m.play == nil:
		return openPalette(m.common, "rewind ")
	case key.Matches(msg, k.Watch) && m.play == nil:
		switch {
		case m.detail.shown && m.detail.detail != nil: // on this entity
			return watchPrompt(m.common, m.detail.detail.Entity.String()+" ")
		case m.view == viewDangling:
			return watchPrompt(m.common, "dangling")
		}
		return watchPrompt(m.common, "")
	}
	return m.focused().Update(msg)
}

// View lays out the screen: tabs, the body (the top modal's, the detail
// or the pane), the bottom line and the status bar.
func (m *model) View() string {
	if m.drawn == "" {
		m.drawn = m.draw()
	}
	return m.drawn
}

// draw draws the screen.
func (m *model) draw() string {
	if m.width == 0 {
		return "connecting to " + m.addr + "…"
	}
	var body []string
	for i := len(m.modals) - 1; i >= 0 && body == nil; i-- {
		body = m.modals[i].View()
	}
	_, helpOpen := m.top().(*helpScreen)
	switch {
	case body != nil:
	case m.summary == nil && !m.detail.shown:
		body = []string{"waiting for the first frame from " + m.addr + "…"}
	default:
		body = m.focused().View()
	}
	lines := make([]string, 0, m.height)
	for i := range m.bodyHeight() {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		if m.conn.state != stateConnected && !helpOpen {
			line = m.styles.Faint.Render(line) // the last data, greyed
		}
		lines = append(lines, line)
	}
	return screen(m.tabs(), lines, m.bottomLine(), m.statusBar(), m.width, m.height)
}

// hitNote says where a watchpoint's hit is to be seen.
func hitNote(h *protocol.WatchHit) string {
	if h.Paused {
		return " — the game is paused (space resumes; 8 lists the hits)"
	}
	return " (8 lists the hits)"
}
