package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

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

var viewNames = [viewCount]string{"Overview", "Archetypes", "Entities", "Systems", "Events", "Journal", "Resources"}

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
func (m *model) pageCmd() tea.Cmd {
	m.lastPageReq = time.Now()
	var unsub tea.Cmd
	if key := fmt.Sprintf("%d %s %s", m.arch, m.query, m.sortBy); key != m.pageKey || m.pageSub == 0 {
		if m.pageSub != 0 {
			unsub = m.src.unsubscribe(m.pageSub)
		}
		m.pageKey, m.page, m.pageErr = key, nil, ""
		m.pageSub = max(m.pageSub+1, subPageFirst)
	}
	sort := m.sortBy
	if m.arch != 0 {
		sort = ""
	}
	sub := m.src.subscribe(protocol.Subscribe{ID: m.pageSub, What: protocol.SubPage, Hz: 5, Query: m.query,
		Archetype: m.arch, Offset: m.offset, Limit: max(m.bodyHeight()-3, 1), Sort: sort})
	return tea.Batch(unsub, sub)
}

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
		m.journal = append(m.journal, msg.j.Entries...)
		if n := len(m.journal); n > maxJournal {
			m.journal = m.journal[n-maxJournal:]
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
	if m.view == viewArchetypes && key.Matches(msg, k.ShowEmpty) {
		m.showEmpty = !m.showEmpty
		return m, nil
	}
	m.moveCursor(msg, m.viewLen(m.view))
	if m.view == viewArchetypes && key.Matches(msg, k.Enter) && m.summary != nil {
		if arch := m.visibleArchetypes(); m.cursor[viewArchetypes] < len(arch) {
			m.arch, m.query, m.offset, m.view = int64(arch[m.cursor[viewArchetypes]].ID)+1, "", 0, viewEntities
			m.cursor[viewEntities] = 0
			return m, m.pageCmd()
		}
	}
	if m.view == viewJournal && key.Matches(msg, k.Enter) {
		if rows := m.journalShown(); m.cursor[viewJournal] < len(rows) {
			return m, m.openDetail(rows[m.cursor[viewJournal]].Entity)
		}
	}
	return m, nil
}

// journalShown is the journal as the view lists it: newest first, the op
// filter applied.
func (m *model) journalShown() []protocol.JournalEntry {
	var out []protocol.JournalEntry
	for i := len(m.journal) - 1; i >= 0; i-- {
		if e := m.journal[i]; m.journalOp == "" || e.Op == m.journalOp {
			out = append(out, e)
		}
	}
	return out
}

// journalFilter applies what was typed after / in the journal view: an
// op (spawn despawn add remove set) is kept here; an entity (42v3), a
// component or a system the agent filters.
func (m *model) journalFilter(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	m.journal, m.cursor[viewJournal], m.journalOp = nil, 0, ""
	filter := text
	switch text {
	case "spawn", "despawn", "add", "remove", "set":
		m.journalOp, filter = text, ""
	}
	m.journalText = text
	return m.src.subscribe(protocol.Subscribe{ID: subJournal, What: protocol.SubJournal, Hz: 4, Filter: filter})
}

func (m *model) viewLen(v int) int {
	switch v {
	case viewArchetypes:
		return len(m.visibleArchetypes())
	case viewSystems:
		if m.summary != nil {
			return len(m.summary.Systems) + len(stagesOf(m.summary.Systems)) // with the stage lines
		}
	case viewJournal:
		return len(m.journalShown())
	case viewResources:
		if m.summary != nil {
			return len(m.summary.Resources)
		}
	case viewEvents:
		if m.events != nil {
			return len(m.events.Queues)
		}
	}
	return 0
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
func (m *model) entitiesKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	visible := max(m.bodyHeight()-3, 1) // the title and the column names
	total := 0
	if m.page != nil {
		total = m.page.Total
	}
	pos := m.offset + m.cursor[viewEntities]
	switch {
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
		if m.page != nil {
			if i := m.cursor[viewEntities]; i < len(m.page.Rows) {
				return m, m.openDetail(m.page.Rows[i].Entity)
			}
		}
		return m, nil
	case key.Matches(msg, k.Left):
		m.colCursor = max(m.colCursor-1, 0)
		return m, nil
	case key.Matches(msg, k.Right):
		m.colCursor++ // clamped when drawn
		return m, nil
	case key.Matches(msg, k.Sort):
		by, err := m.sortColumn()
		if err != nil {
			m.setFlash(err.Error(), true)
			return m, nil
		}
		m.sortBy, m.offset = by, 0
		return m, m.pageCmd()
	default:
		return m, nil
	}
	pos = max(min(pos, total-1), 0)
	offset := m.offset
	if pos < offset {
		offset = pos
	} else if pos >= offset+visible {
		offset = pos - visible + 1
	}
	m.cursor[viewEntities] = pos - offset
	m.selected = 0
	if m.page != nil && pos-offset < len(m.page.Rows) && offset == m.offset {
		m.selected = m.page.Rows[pos-offset].Entity
	}
	if offset != m.offset {
		m.offset = offset
		return m, m.pageCmd()
	}
	return m, nil
}

// filterPrompt is the entities view's query prompt: checked as typed,
// applied by the agent on enter.
func (m *model) filterPrompt() *prompt {
	return &prompt{kind: promptFilter, label: "/", hint: "enter applies, esc keeps the list",
		check: func(text string) string {
			if _, err := protocol.ParseQuery(text); err != nil {
				return err.Error() // the list keeps its last good result
			}
			return ""
		},
		submit: func(text string) (tea.Cmd, string) {
			q := strings.TrimSpace(text)
			if _, err := protocol.ParseQuery(q); err != nil {
				return nil, err.Error()
			}
			m.query, m.arch, m.offset, m.cursor[viewEntities] = q, 0, 0, 0
			return m.pageCmd(), ""
		}}
}

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

// screen lays out the tabs, the body, the bottom line and the status bar
// in exactly height lines of at most width cells. On a terminal too short
// for all of them the tabs go first, then the bottom line: the status bar
// (what the game is doing) stays.
func screen(tabs string, body []string, bottom, status string, width, height int) string {
	if height <= 0 || width <= 0 {
		return ""
	}
	var top, under []string
	switch {
	case height >= 4:
		top, under = []string{tabs}, []string{bottom, status}
	case height == 3:
		under = []string{bottom, status}
	default:
		under = []string{status}
	}
	rows := height - len(top) - len(under)
	out := make([]string, 0, height)
	out = append(out, top...)
	for i := range max(rows, 0) {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, line)
	}
	out = append(out, under...)
	out = out[:min(len(out), height)]
	for i := range out {
		out[i] = fit(out[i], width)
	}
	return strings.Join(out, "\n")
}

// helpLines is every key in columns; on a narrow terminal the columns
// stack in two rows of groups so that none is cut off.
func (m *model) helpLines() []string {
	groups := m.helpGroups()
	wide := m.help
	wide.Width = 0 // measure without cutting
	if ansi.StringWidth(firstLine(wide.FullHelpView(groups))) <= m.width {
		return strings.Split(wide.FullHelpView(groups), "\n")
	}
	half := (len(groups) + 1) / 2
	top := strings.Split(wide.FullHelpView(groups[:half]), "\n")
	return append(append(top, ""), strings.Split(wide.FullHelpView(groups[half:]), "\n")...)
}

// tabs draws the view names, tighter on a narrow terminal: padded, then
// unpadded, then cut to four letters, whichever fits first.
func (m *model) tabs() string {
	formats := []func(i int, n string) string{
		func(i int, n string) string { return fmt.Sprintf(" %d %s ", i+1, n) },
		func(i int, n string) string { return fmt.Sprintf(" %d %s", i+1, n) },
		func(i int, n string) string { return fmt.Sprintf(" %d %.4s", i+1, n) },
	}
	var parts []string
	for _, label := range formats {
		width := 0
		parts = parts[:0]
		for i, n := range viewNames {
			l := label(i, n)
			width += len(l)
			if i == m.view && !m.showDetail {
				parts = append(parts, m.styles.ActiveTab.Render(l))
			} else {
				parts = append(parts, m.styles.Tab.Render(l))
			}
		}
		if width <= m.width {
			return strings.Join(parts, "")
		}
	}
	return fit(strings.Join(parts, ""), m.width)
}

// bottomLine is the filter, the edit field, a question, a flash or help.
func (m *model) bottomLine() string {
	switch {
	case m.confirm != "":
		if m.confirmAlt != nil {
			return m.styles.Error.Render(m.confirm + " [y/o/N]")
		}
		return m.styles.Error.Render(m.confirm + " [y/N]")
	case m.prompt != nil:
		return m.promptLine()
	case m.play != nil && (m.flash == "" || time.Since(m.flashAt) >= 4*time.Second):
		return m.timeline()
	case m.flash != "" && time.Since(m.flashAt) < 4*time.Second:
		if m.flashErr {
			return m.styles.Error.Render(m.flash)
		}
		return m.styles.Flash.Render(m.flash)
	}
	return m.help.ShortHelpView(m.hints())
}

func (m *model) statusBar() string {
	var state string
	if m.play != nil {
		p := m.play
		parts := []string{"REVIEW", p.path, fmt.Sprintf("frame %d/%d", m.rv.idx+1, len(p.rec.Frames)), fmt.Sprintf("tick %d", m.rv.tick)}
		parts = append(parts, fmt.Sprintf("%d entities", m.rv.alive))
		if m.rv.asOf != "" {
			parts = append(parts, m.rv.asOf)
		}
		if p.rec.Truncated {
			parts = append(parts, "truncated: "+p.rec.Note)
		}
		return m.styles.Status.Render(fit(" "+strings.Join(parts, " │ "), m.width))
	}
	switch m.conn.state {
	case stateConnecting:
		state = "connecting"
	case stateConnected:
		state = "connected"
		if m.summary != nil && m.summary.Paused {
			state = "PAUSED"
		}
	case stateReconnecting:
		state = fmt.Sprintf("reconnecting (%d)", m.conn.attempt)
	case stateClosed:
		state = "disconnected"
	}
	if m.readOnly {
		state += " read-only"
	}
	// What the game does first: a narrow terminal cuts from the right.
	parts := []string{state}
	if s := m.summary; s != nil {
		parts = append(parts, fmt.Sprintf("tick %d", s.Tick), "frame "+client.Duration(s.FrameNs), fmt.Sprintf("%d entities", s.Entities))
		if r := m.rate.perSecond(); r > 0 {
			parts = append(parts, fmt.Sprintf("%.1f ticks/s", r))
		}
	}
	if m.rec != nil {
		frames, _, _ := m.rec.Progress()
		parts = append(parts, fmt.Sprintf("● REC %s (%d)", m.rec.Path, frames))
	}
	if s := m.summary; s != nil && s.Agent.Recording != "" {
		parts = append(parts, "● game records "+s.Agent.Recording)
	}
	parts = append(parts, m.addr)
	return m.styles.Status.Render(fit(" "+strings.Join(parts, " │ "), m.width))
}

// openPalette opens the : command line with text already typed: the
// commands of ecsinspect exec, and open E.
func (m *model) openPalette(text string) tea.Cmd {
	if m.readOnly && text != "open " {
		m.setFlash("read-only agent: commands are off (o opens an entity)", true)
		return nil
	}
	return m.openPrompt(&prompt{kind: promptCommand, label: ":", hint: "open E, pause resume step N set add remove parent despawn spawn; enter runs, esc closes",
		submit: m.runCommand}, text)
}

// runCommand runs what was typed on the command line.
func (m *model) runCommand(text string) (tea.Cmd, string) {
	words := client.SplitWords(text)
	if len(words) == 0 {
		return nil, ""
	}
	if words[0] == "open" { // the UI's own: open any entity by its handle
		if len(words) != 2 {
			m.setFlash("open: want an entity like 42v3", true)
			return nil, ""
		}
		e, err := protocol.ParseEntityID(words[1])
		if err != nil || e == 0 {
			m.setFlash(fmt.Sprintf("open: %q is not an entity like 42v3", words[1]), true)
			return nil, ""
		}
		return m.followEntity(e), ""
	}
	build, what, err := client.ParseCommand(words)
	if err != nil {
		m.setFlash(firstLine(err.Error()), true)
		return nil, ""
	}
	return m.src.request(what, build), ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// toggleRecording starts or stops recording the game (every entity and
// value, every frame) to a file in the current directory, over a
// connection of its own. Dialing and closing the file happen in commands;
// recordingMsg brings the outcome back.
func (m *model) toggleRecording() tea.Cmd {
	if m.rec != nil {
		r := m.rec
		m.rec = nil
		m.setFlash("closing the recording…", false)
		return stopRecording(r)
	}
	path := "ecsinspect-" + time.Now().Format("20060102-150405") + ".ecsrec"
	addr, token := m.addr, m.token
	m.setFlash("starting a recording…", false)
	return func() tea.Msg {
		r, err := client.StartRecording(addr, token, path, 0)
		return recordingMsg{started: r, path: path, err: err}
	}
}

func stopRecording(r *client.Recorder) tea.Cmd {
	return func() tea.Msg {
		frames, _, _ := r.Progress()
		return recordingMsg{path: r.Path, frames: frames, err: r.Stop()}
	}
}

// recordingMsg is a recording started (started set) or stopped.
type recordingMsg struct {
	started *client.Recorder
	path    string
	frames  int
	err     error
}

func (m *model) recording(msg recordingMsg) {
	switch {
	case msg.err != nil:
		m.setFlash("recording: "+msg.err.Error(), true)
	case msg.started != nil:
		m.rec = msg.started
		m.setFlash("recording every frame to "+msg.path+"; r stops", false)
	default:
		m.setFlash(fmt.Sprintf("recorded %d frames to %s (ecsinspect open %s)", msg.frames, msg.path, msg.path), false)
	}
}

// quit ends the program, closing a recording whole first.
func (m *model) quit() tea.Cmd {
	if m.rec != nil {
		r := m.rec
		m.rec = nil
		return tea.Sequence(stopRecording(r), tea.Quit)
	}
	return tea.Quit
}

// keepSelection keeps the cursor on the entity it was on when a new page
// moves rows (sorting, spawns, despawns); if the entity left the window,
// the cursor stays where it was and takes the entity now there.
func (m *model) keepSelection() {
	p := m.page
	if p == nil || len(p.Rows) == 0 {
		return
	}
	if m.selected != 0 {
		for i, r := range p.Rows {
			if r.Entity == m.selected {
				m.cursor[viewEntities] = i
				return
			}
		}
	}
	i := min(m.cursor[viewEntities], len(p.Rows)-1)
	m.cursor[viewEntities] = i
	m.selected = p.Rows[i].Entity
}

// maxJournal is how many journal entries the journal view keeps.
const maxJournal = 10000

// tickRate measures ticks per second over the last few seconds.
type tickRate struct {
	ticks []uint64
	at    []time.Time
}

func (r *tickRate) add(tick uint64, now time.Time) {
	r.ticks, r.at = append(r.ticks, tick), append(r.at, now)
	for len(r.at) > 2 && now.Sub(r.at[0]) > 3*time.Second {
		r.ticks, r.at = r.ticks[1:], r.at[1:]
	}
}

// perSecond is the rate, or 0 before there is a second of summaries.
func (r *tickRate) perSecond() float64 {
	n := len(r.at)
	if n < 2 {
		return 0
	}
	d := r.at[n-1].Sub(r.at[0])
	if d < time.Second || r.ticks[n-1] < r.ticks[0] {
		return 0
	}
	return float64(r.ticks[n-1]-r.ticks[0]) / d.Seconds()
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
