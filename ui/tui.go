package ui

import (
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The views, in the order of their number keys.

const (
	viewOverview = iota
	viewArchetypes
	viewEntities
	viewSystems
	viewEvents
	viewJournal
	viewResources
	viewCount
)

// model is the whole UI. It knows the world only through the session.
type model struct {
	src    source
	play   *player // a recording under review, or nil for a live game
	addr   string
	styles Styles
	keys   keyMap
	help   help.Model

	width, height int
	view          int
	conn          connMsg
	readOnly      bool

	summary *protocol.Summary
	page    *protocol.Page
	events  *protocol.Events
	journal []protocol.JournalEntry

	cursor [viewCount]int
	offset int    // first row of the entities window
	query  string // the entities view's query
	arch   int64  // entities view limited to an archetype (1 + id), 0 for none

	detail      *protocol.Detail
	prevDetail  map[string]string    // field path -> value, for highlighting changes
	changedAt   map[string]time.Time // field path -> when it changed
	showDetail  bool
	detailLine  int
	prompt      *prompt        // the open text prompt (/, :, e, t), or nil
	confirm     string         // a question waiting for y/n
	confirmYes  func() tea.Cmd // what y does: built when answered, never before (a request is sent when made)
	showHelp    bool
	flash       string
	flashErr    bool
	flashAt     time.Time
	lastPageReq time.Time
	compareFrom int // review: frame marked by c, or -1
	compare     []string
	compareOff  int                 // first line of compare shown
	pageSub     uint32              // the entities view's subscription: one per query or archetype
	pageKey     string              // the archetype and query pageSub answers
	pageErr     string              // the agent refused the query: shown in place of rows
	trail       []protocol.EntityID // the detail's back stack: entities left by following references
	colCursor   int                 // the entities table's column under the cursor
	colFirst    int                 // the first field column shown (sideways scroll)
	sortBy      string              // the entities page's sort, "" for the agent's order
	selected    protocol.EntityID   // the entity under the cursor: kept there while rows move
	rate        tickRate            // the game's real tick rate, from the summaries
	confirmAlt  func() tea.Cmd      // a question's second answer (o), if it has one
	lastAlive   *protocol.Detail    // the detail's entity as last seen alive
	tree        *treeView           // the hierarchy, opened from the detail view (T)
	rv          reviewPos           // a review's position, as last seeked
	showEmpty   bool                // the archetypes view lists empty archetypes too
	journalOp   string              // the journal view keeps entries of this op only ("" all)
	journalText string              // the journal view's filter, as typed
	form        *componentForm      // a or n: choosing components and typing their fields

	rec   *client.Recorder // r: the recording running, or nil
	token string           // the agent's token, for the recorder's own connection
}

func newModel(src source, addr string) *model {
	return &model{src: src, addr: addr, compareFrom: -1, styles: DefaultStyles(), keys: defaultKeys(), help: help.New(),
		prevDetail: map[string]string{}, changedAt: map[string]time.Time{}, view: viewOverview}
}

type tickMsg time.Time

func tick() tea.Cmd {
	return tea.Tick(250*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *model) Init() tea.Cmd {
	return tea.Batch(
		m.src.subscribe(protocol.Subscribe{ID: subSummary, What: protocol.SubSummary, Hz: 10}),
		m.src.subscribe(protocol.Subscribe{ID: subEvents, What: protocol.SubEvents, Hz: 4, Sample: 8}),
		m.src.subscribe(protocol.Subscribe{ID: subJournal, What: protocol.SubJournal, Hz: 4}),
		m.pageCmd(),
		tick(),
	)
}

// bodyHeight is the rows between the tab bar and the status bar.
func (m *model) bodyHeight() int { return max(m.height-3, 1) }

// pageCmd (re)subscribes the entities window for what is on screen. A new
// query or archetype is a new subscription, with an id of its own: frames
// of the old one still on their way are dropped, and until the first frame
// of the new one arrives the view says it is waiting, never showing the old
// rows under the new title.
func (m *model) setFlash(s string, isErr bool) {
	m.flash, m.flashErr, m.flashAt = s, isErr, time.Now()
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.Width = msg.Width
		return m, m.pageCmd()
	case tickMsg:
		return m, tick()
	case connMsg:
		m.conn = msg
		if msg.welcome != nil {
			m.readOnly = msg.welcome.ReadOnly
		}
		if msg.state == stateClosed {
			m.setFlash(msg.err.Error(), true)
		}
		return m, nil
	case summaryMsg:
		m.summary = msg.s
		m.rate.add(msg.s.Tick, time.Now())
		return m, nil
	case pageMsg:
		if msg.p.Sub != m.pageSub {
			return m, nil // a frame of a query no longer shown
		}
		m.page, m.pageErr = msg.p, ""
		m.keepSelection()
		if m.page.Total > 0 && m.offset >= m.page.Total { // the list shrank under us
			m.offset = max(m.page.Total-1, 0)
			return m, m.pageCmd()
		}
		return m, nil
	case seekedMsg:
		return m.seeked(msg)
	case recordingMsg:
		m.recording(msg)
		return m, nil
	case compareMsg:
		m.compare, m.compareOff = msg.lines, 0
		return m, nil
	case detailMsg:
		if cmd, ok := m.treeDetail(msg.d); ok {
			return m, cmd
		}
		if msg.d.Sub == subDetail {
			m.setDetail(msg.d)
		}
		return m, nil
	case eventsMsg:
		m.events = msg.e
		return m, nil
	case journalMsg:
		if msg.replace {
			m.journal = nil
		}
		before := len(m.journalShown())
		m.journal = append(m.journal, msg.j.Entries...)
		if n := len(m.journal); n > maxJournal {
			m.journal = m.journal[n-maxJournal:]
		}
		// Newest first: new rows push the cursor's row down. At the top the
		// cursor stays there (the view tails the journal); below, it follows
		// its row, so enter opens what was under it.
		if shown := len(m.journalShown()); !msg.replace && m.cursor[viewJournal] > 0 {
			m.cursor[viewJournal] = min(m.cursor[viewJournal]+max(shown-before, 0), max(shown-1, 0))
		}
		return m, nil
	case replyMsg:
		if msg.r.OK {
			text := msg.what + ": ok"
			if msg.r.Entity != 0 {
				text += " (" + msg.r.Entity.String() + ")"
			}
			m.setFlash(text, false)
		} else {
			m.setFlash(msg.what+": "+msg.r.Message, true)
			if msg.r.ID == m.pageSub { // the agent refused the page: say so in place
				m.page, m.pageErr = nil, msg.r.Message
			}
		}
		return m, nil
	case tea.KeyMsg:
		return m.keyBurst(msg)
	}
	return m, nil
}

// keyBurst applies a message that carries several runes (keys typed
// faster than the terminal reports them, key repeat over ssh) key by key,
// as if each had come alone; text typed or pasted into a prompt lands
// whole.
func (m *model) keyBurst(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.typing() {
		return m.key(msg)
	}
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		if m.typing() { // a key of the burst opened a prompt: the rest is its text
			_, cmd := m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: msg.Runes[i:]})
			cmds = append(cmds, cmd)
			break
		}
		_, cmd := m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

// typing reports whether a text input has the keys.
func (m *model) typing() bool {
	return m.prompt != nil || m.form != nil
}

func (m *model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if msg.Type == tea.KeyCtrlC { // from anywhere: prompts, forms, questions
		return m, m.quit()
	}
	if m.confirm != "" {
		yes, alt := m.confirmYes, m.confirmAlt
		m.confirm, m.confirmYes, m.confirmAlt = "", nil, nil
		switch {
		case (msg.String() == "y" || msg.String() == "Y") && yes != nil:
			return m, yes()
		case msg.String() == "o" && alt != nil:
			return m, alt()
		default:
			m.setFlash("cancelled", false)
			return m, nil
		}
	}
	if m.prompt != nil {
		return m.promptKey(msg)
	}
	if m.form != nil {
		return m.formKey(msg)
	}
	if m.showHelp {
		m.showHelp = false
		return m, nil
	}
	if m.compare != nil {
		switch msg.String() {
		case "j", "down":
			m.compareOff = min(m.compareOff+1, max(len(m.compare)-1, 0))
		case "k", "up":
			m.compareOff = max(m.compareOff-1, 0)
		case "pgdown", " ", "ctrl+d":
			m.compareOff = min(m.compareOff+m.bodyHeight(), max(len(m.compare)-1, 0))
		case "pgup", "ctrl+u":
			m.compareOff = max(m.compareOff-m.bodyHeight(), 0)
		default:
			m.compare, m.compareOff = nil, 0
		}
		return m, nil
	}
	if m.tree != nil { // the hierarchy has the keys while it is open
		return m.treeKey(msg)
	}
	if m.play != nil {
		if model, cmd, ok := m.reviewKey(msg); ok {
			return model, cmd
		}
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m, m.quit()
	case key.Matches(msg, k.Help):
		m.showHelp = true
		return m, nil
	case key.Matches(msg, k.Pause):
		if m.summary != nil && m.summary.Paused {
			return m, m.src.request("resume", func(id uint32) protocol.Message { return &protocol.Resume{ID: id} })
		}
		return m, m.src.request("pause", func(id uint32) protocol.Message { return &protocol.Pause{ID: id} })
	case key.Matches(msg, k.Step):
		return m, m.src.request("step", func(id uint32) protocol.Message { return &protocol.Step{ID: id, N: 1} })
	}
	// Keys that work everywhere, the detail view included (leaving it).
	switch {
	case key.Matches(msg, k.Views), key.Matches(msg, k.NextView), key.Matches(msg, k.PrevView):
		closeDetail := m.leaveDetail()
		switch {
		case key.Matches(msg, k.Views):
			m.view = int(msg.String()[0] - '1')
		case key.Matches(msg, k.NextView):
			m.view = (m.view + 1) % viewCount
		default:
			m.view = (m.view + viewCount - 1) % viewCount
		}
		return m, closeDetail
	case key.Matches(msg, k.Palette):
		return m, m.openPalette("")
	case key.Matches(msg, k.Open):
		return m, m.openPalette("open ")
	case key.Matches(msg, k.Filter) && m.view == viewJournal && !m.showDetail:
		return m, m.openPrompt(&prompt{kind: promptJournal, label: "journal filter: ", hint: "an entity (42v3), a component, a system, or spawn despawn add remove set; enter applies",
			submit: func(text string) (tea.Cmd, string) { return m.journalFilter(text), "" }}, m.journalText)
	case key.Matches(msg, k.Filter):
		closeDetail := m.leaveDetail()
		m.view = viewEntities
		return m, tea.Batch(closeDetail, m.openPrompt(m.filterPrompt(), m.query))
	}
	if m.showDetail {
		return m.detailKey(msg)
	}
	switch {
	case key.Matches(msg, k.Record) && m.play == nil:
		return m, m.toggleRecording()
	case key.Matches(msg, k.Spawn):
		return m, m.openForm(true)
	case key.Matches(msg, k.Back):
		if m.view == viewEntities && m.arch != 0 { // back to the archetypes it came from
			m.query, m.arch, m.offset, m.view = "", 0, 0, viewArchetypes
			return m, m.pageCmd()
		}
		if m.view == viewEntities && m.query != "" {
			m.query, m.arch, m.offset = "", 0, 0
			return m, m.pageCmd()
		}
		return m, nil
	}
	if m.view == viewEntities {
		return m.entitiesKey(msg)
	}
	p := panes[m.view]
	if p.key != nil {
		if cmd, done := p.key(m, msg); done {
			return m, cmd
		}
	}
	m.moveCursor(msg, m.viewLen(m.view))
	return m, nil
}

// viewLen is how many rows the cursor of view v moves over.
func (m *model) viewLen(v int) int {
	if m.summary == nil || panes[v].rows == nil {
		return 0
	}
	return panes[v].rows(m)
}

func (m *model) moveCursor(msg tea.KeyMsg, n int) {
	c := &m.cursor[m.view]
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		*c--
	case key.Matches(msg, k.Down):
		*c++
	case key.Matches(msg, k.PageUp):
		*c -= m.bodyHeight()
	case key.Matches(msg, k.PageDown):
		*c += m.bodyHeight()
	case key.Matches(msg, k.Top):
		*c = 0
	case key.Matches(msg, k.Bottom):
		*c = n - 1
	}
	*c = max(min(*c, n-1), 0)
}

// entitiesKey scrolls the window: the agent sends only what is visible.
// filterPrompt is the entities view's query prompt: checked as typed,
// applied by the agent on enter.
func (m *model) View() string {
	if m.width == 0 {
		return "connecting to " + m.addr + "…"
	}
	var body []string
	switch {
	case m.showHelp:
		body = m.helpLines()
	case m.compare != nil:
		body = m.compare[min(m.compareOff, len(m.compare)):]
	case m.form != nil:
		body = m.formView()
	case m.tree != nil:
		body = m.treeLines()
	case m.showDetail:
		body = m.detailView()
	default:
		body = m.viewLines()
	}
	lines := make([]string, 0, m.height)
	for i := range m.bodyHeight() {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		if m.conn.state != stateConnected && !m.showHelp {
			line = m.styles.Faint.Render(line) // the last data, greyed
		}
		lines = append(lines, line)
	}
	return screen(m.tabs(), lines, m.bottomLine(), m.statusBar(), m.width, m.height)
}

// stagesOf lists the stages of systems, in order.
func stagesOf(sys []protocol.System) []string {
	var out []string
	for _, s := range sys {
		if !slices.Contains(out, s.Stage) {
			out = append(out, s.Stage)
		}
	}
	return out
}
