package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/fleet"
	"github.com/ecsinspect/ecsinspect/internal/printable"
)

// The Fleet view: every instance on a broker, one row each, live or gone,
// sortable and filterable like the entities table. enter attaches to one
// with every view (F comes back); ':' runs a command on every instance
// shown (as exec --all), 'query EXPR' asks them all which hold a match;
// a watchpoint set on the fleet fires on any instance and the view says
// which, pausing only that one unless set with --pause-all.

// fleetColumns are the Fleet view's columns, in order; s sorts by the next.
var fleetColumns = []struct {
	title string
	width int
	key   func(m fleet.Member) string  // text, for the cell and text sorts
	num   func(m fleet.Member) float64 // numbers sort as numbers
}{
	{"INSTANCE", 18, func(m fleet.Member) string { return m.Instance }, nil},
	{"GAME", 11, func(m fleet.Member) string { return m.Game }, nil},
	{"HOST", 12, func(m fleet.Member) string { return m.Host }, nil},
	{"TICK", 9, func(m fleet.Member) string { return strconv.FormatUint(m.Tick, 10) }, func(m fleet.Member) float64 { return float64(m.Tick) }},
	{"TPS", 6, func(m fleet.Member) string { return fmt.Sprintf("%.1f", m.TPS) }, func(m fleet.Member) float64 { return m.TPS }},
	{"FRAME p99", 10, func(m fleet.Member) string { return fmt.Sprintf("%.1f ms", m.FrameP99) }, func(m fleet.Member) float64 { return m.FrameP99 }},
	{"ENTITIES", 9, func(m fleet.Member) string { return strconv.Itoa(m.Entities) }, func(m fleet.Member) float64 { return float64(m.Entities) }},
	{"PAUSED", 6, func(m fleet.Member) string { return map[bool]string{true: "yes", false: ""}[m.Paused] }, nil},
	{"HITS", 5, func(m fleet.Member) string { return strconv.FormatUint(m.Hits, 10) }, func(m fleet.Member) float64 { return float64(m.Hits) }},
	{"SEEN", 24, nil, nil}, // filled in by seen()
}

// fleetModel is the Fleet view's program.
type fleetModel struct {
	fl     *client.Fleet
	roster *fleet.Roster
	styles Styles

	width, height int
	members       []fleet.Member // the roster, last read
	rows          []fleet.Member // shown: filtered and sorted
	cursor        int
	sortCol       int
	sortDesc      bool
	filter        string
	filterErr     string
	input         textinput.Model
	inputKind     byte // 0 none, '/' filter, ':' command
	results       []string
	flashText     string
	hits          map[string]uint64 // by instance: the hits seen last, to tell a new one
	pauseAll      bool              // a fleet watchpoint pauses every instance when it fires on one
	busy          bool              // a fan-out runs
	scroll        int               // the first result line shown
	reachable     bool              // the broker answered at the last look
	brokerWhy     string            // why it cannot be reached

	// attach is the instance chosen with enter: the program ends and the
	// caller opens the UI on it.
	attach string
}

type fleetTickMsg struct{}    // the clock: ages change
type fleetChangedMsg struct{} // the roster changed
type fleetResultMsg struct {
	lines []string
	flash string
}

// newFleetModel shows the fleet fl holds, following its roster.
func newFleetModel(fl *client.Fleet) (*fleetModel, error) {
	if err := fl.Follow(); err != nil {
		return nil, err
	}
	in := textinput.New()
	in.Prompt = ""
	return &fleetModel{fl: fl, roster: fl.Roster(), styles: DefaultStyles(), sortCol: 0, input: in, hits: map[string]uint64{}, reachable: true}, nil
}

func (f *fleetModel) Init() tea.Cmd { return tea.Batch(f.watch(), fleetTick()) }

// watch waits for the roster to change.
func (f *fleetModel) watch() tea.Cmd {
	ch := f.roster.Changed()
	return func() tea.Msg { <-ch; return fleetChangedMsg{} }
}

func fleetTick() tea.Cmd {
	return tea.Tick(500*time.Millisecond, func(time.Time) tea.Msg { return fleetTickMsg{} })
}

func (f *fleetModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.width, f.height = msg.Width, msg.Height
	case fleetTickMsg:
		return f, tea.Batch(f.refresh(), fleetTick())
	case fleetChangedMsg: // one watcher at a time: the next starts here
		return f, tea.Batch(f.refresh(), f.watch())
	case fleetResultMsg:
		f.busy = false
		f.results, f.flashText, f.scroll = msg.lines, msg.flash, 0
	case tea.KeyMsg:
		return f, f.key(msg)
	}
	return f, nil
}

// refresh reads the roster, notes new watchpoint hits, and redoes the
// rows.
func (f *fleetModel) refresh() tea.Cmd {
	reachable, why := f.fl.BrokerState()
	if reachable && !f.reachable { // back: ask everyone at once, rather than wait for their clocks
		_ = f.roster.Refresh()
	}
	f.reachable, f.brokerWhy = reachable, printable.Text(why)
	f.members = f.roster.Members() // copies: cleaned here, for the terminal
	printable.Clean(f.members)
	var fired []string
	paused := false
	for _, m := range f.members {
		if m.Hits > f.hits[m.Instance] {
			fired = append(fired, m.Instance)
			paused = paused || m.Paused
		}
		f.hits[m.Instance] = m.Hits
	}
	f.layout()
	if len(fired) == 0 {
		return nil
	}
	f.flashText = fmt.Sprintf("⚑ a watchpoint fired on %s", strings.Join(fired, ", "))
	if !paused { // a log-only watchpoint: nothing stopped
		f.flashText += " (log only: it runs on)"
		return nil
	}
	if !f.pauseAll {
		f.flashText += " (that instance is paused: enter to look)"
		f.moveTo(fired[0])
		return nil
	}
	f.pauseAll = false
	f.flashText += ": pausing the others"
	return f.runCommand([]string{"pause"}, fired[0])
}

// layout filters and sorts the members into rows, keeping the cursor on
// its instance.
func (f *fleetModel) layout() {
	at := ""
	if f.cursor < len(f.rows) {
		at = f.rows[f.cursor].Instance
	}
	f.rows = f.rows[:0]
	f.filterErr = ""
	for _, m := range f.members {
		ok, err := f.passes(m)
		if err != nil {
			f.filterErr = err.Error()
			ok = true
		}
		if ok {
			f.rows = append(f.rows, m)
		}
	}
	col := fleetColumns[f.sortCol]
	slices.SortStableFunc(f.rows, func(a, b fleet.Member) int {
		c := 0
		switch {
		case col.num != nil:
			c = cmp.Compare(col.num(a), col.num(b))
		case col.key != nil:
			c = strings.Compare(col.key(a), col.key(b))
		default:
			c = a.Seen.Compare(b.Seen)
		}
		if f.sortDesc {
			c = -c
		}
		if c == 0 {
			c = strings.Compare(a.Instance, b.Instance)
		}
		return c
	})
	f.moveTo(at)
}

// passes applies the filter: terms on the discovery fields (fleet.Match)
// when it has = < or >, else words any of instance, game or host holds.
func (f *fleetModel) passes(m fleet.Member) (bool, error) {
	if strings.ContainsAny(f.filter, "=<>") {
		return fleet.Match(m, f.filter)
	}
	for _, w := range strings.Fields(strings.ToLower(f.filter)) {
		if !strings.Contains(strings.ToLower(m.Instance+" "+m.Game+" "+m.Host), w) {
			return false, nil
		}
	}
	return true, nil
}

func (f *fleetModel) moveTo(instance string) {
	for i, r := range f.rows {
		if r.Instance == instance {
			f.cursor = i
			return
		}
	}
	f.cursor = min(f.cursor, max(len(f.rows)-1, 0))
}

func (f *fleetModel) key(k tea.KeyMsg) tea.Cmd {
	if f.inputKind != 0 {
		return f.typing(k)
	}
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste {
		// Keys typed faster than they were read come as one burst: each
		// is a key until one opens the input, which takes the rest.
		var cmds []tea.Cmd
		for i, r := range k.Runes {
			if f.inputKind != 0 {
				cmds = append(cmds, f.typing(tea.KeyMsg{Type: tea.KeyRunes, Runes: k.Runes[i:]}))
				break
			}
			cmds = append(cmds, f.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
		}
		return tea.Batch(cmds...)
	}
	switch k.String() {
	case "q", "ctrl+c":
		return tea.Quit
	case "up", "k":
		f.cursor = max(f.cursor-1, 0)
	case "down", "j":
		f.cursor = min(f.cursor+1, max(len(f.rows)-1, 0))
	case "g", "home":
		f.cursor = 0
	case "G", "end":
		f.cursor = max(len(f.rows)-1, 0)
	case "s":
		f.sortCol = (f.sortCol + 1) % len(fleetColumns)
		f.layout()
	case "S":
		f.sortDesc = !f.sortDesc
		f.layout()
	case "?":
		f.results, f.scroll = fleetHelp, 0
	case "pgdown", " ":
		f.scroll = min(f.scroll+f.resultRows()-1, max(len(f.results)-f.resultRows()+1, 0))
	case "pgup":
		f.scroll = max(f.scroll-f.resultRows()+1, 0)
	case "r":
		if err := f.roster.Refresh(); err != nil {
			f.flashText = err.Error()
		}
	case "esc":
		f.results, f.flashText = nil, ""
		if f.filter != "" {
			f.filter = ""
			f.layout()
		}
	case "/", ":":
		f.inputKind = k.String()[0]
		f.input.SetValue("")
		if f.inputKind == '/' {
			f.input.SetValue(f.filter)
		}
		f.input.CursorEnd()
		return f.input.Focus()
	case "enter":
		if f.cursor >= len(f.rows) {
			return nil
		}
		m := f.rows[f.cursor]
		if m.Gone {
			f.flashText = m.Instance + " is gone: nothing to attach to"
			return nil
		}
		f.attach = m.Instance
		return tea.Quit
	}
	return nil
}

// typing edits the filter or the command line.
func (f *fleetModel) typing(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		f.inputKind = 0
		f.input.Blur()
		return nil
	case "enter":
		kind, text := f.inputKind, strings.TrimSpace(f.input.Value())
		f.inputKind = 0
		f.input.Blur()
		if kind == '/' {
			f.filter = text
			f.layout()
			return nil
		}
		return f.command(text)
	}
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(k)
	if f.inputKind == '/' { // the table follows the filter as it is typed
		f.filter = f.input.Value()
		f.layout()
	}
	return cmd
}

// command runs a ':' line on every live instance shown.
func (f *fleetModel) command(line string) tea.Cmd {
	words := strings.Fields(line)
	if len(words) == 0 {
		return nil
	}
	if words[0] == "watch" && len(words) > 1 && words[1] == "--pause-all" {
		f.pauseAll = true
		words = append(words[:1], words[2:]...)
	}
	return f.runCommand(words, "")
}

// runCommand runs words on every live instance shown but skip, off the
// UI's goroutine.
func (f *fleetModel) runCommand(words []string, skip string) tea.Cmd {
	var targets []fleet.Member
	for _, m := range f.rows {
		if !m.Gone && m.Instance != skip {
			targets = append(targets, m)
		}
	}
	if len(targets) == 0 {
		f.flashText = "no live instance is shown"
		return nil
	}
	if f.busy {
		f.flashText = "a command is still running on the fleet"
		return nil
	}
	f.busy = true
	fl := f.fl
	f.flashText = fmt.Sprintf("%s: on %d instances…", strings.Join(words, " "), len(targets))
	return func() tea.Msg {
		if words[0] == "query" {
			expr := strings.TrimSpace(strings.Join(words[1:], " "))
			res := fl.QueryEach(targets, expr, 3)
			totals := make([]int, 0, len(res))
			lines := make([]string, 0, len(res))
			for _, r := range res {
				totals = append(totals, r.Total)
			}
			slices.SortStableFunc(res, func(a, b client.InstanceResult) int { return cmp.Compare(b.Total, a.Total) })
			for _, r := range res {
				lines = append(lines, resultLine(r))
			}
			return fleetResultMsg{lines: lines, flash: fmt.Sprintf("%s: %d of %d instances hold a match", expr, client.HoldingMatch(totals), len(res))}
		}
		res, err := fl.CommandEach(targets, words)
		if err != nil {
			return fleetResultMsg{flash: err.Error()}
		}
		failed := 0
		lines := make([]string, 0, len(res))
		for _, r := range res {
			if r.Err != nil {
				failed++
			}
			lines = append(lines, resultLine(r))
		}
		return fleetResultMsg{lines: lines, flash: fmt.Sprintf("%s: done on %d instances, %d failed", strings.Join(words, " "), len(res), failed)}
	}
}

// fleetHelp is the Fleet view's keys, shown in its results pane on ?.
var fleetHelp = []string{
	"enter  attach: every view; F comes back     s S  sort by next column, reverse",
	"/      filter: words, or fields (hits>0,game=arena,instance=match-1*)",
	":      on every live instance shown: query EXPR (who holds a match),",
	"       pause, resume, step N, unwatch N, set/add/remove as exec takes them,",
	"       watch EXPR (pauses the one it fires on; --pause-all: the others too)",
	"r      ask every instance now     esc  clear     ↑↓ j k g G  move     q  quit",
}

// resultLine is one instance's result, its words from the game escaped.
func resultLine(r client.InstanceResult) string {
	if r.Err != nil {
		return fmt.Sprintf("%-18s FAILED: %s", r.Instance, printable.Text(r.Err.Error()))
	}
	return fmt.Sprintf("%-18s %s", r.Instance, printable.Text(r.Text))
}

// seen says when a member was last heard of, or that it is gone.
func seen(m fleet.Member, now time.Time) string {
	if m.Gone {
		return fmt.Sprintf("gone %s ago (%s)", ago(now.Sub(m.GoneAt)), m.Why)
	}
	return ago(now.Sub(m.Seen)) + " ago"
}

func ago(d time.Duration) string {
	switch {
	case d < time.Second:
		return "<1s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh", int(d.Hours()))
}

func (f *fleetModel) View() string {
	if f.width == 0 {
		return ""
	}
	now := time.Now()
	live := 0
	for _, m := range f.members {
		if !m.Gone {
			live++
		}
	}
	title := f.styles.Title.Render(fmt.Sprintf(" Fleet %s", f.fl.Target())) + fmt.Sprintf("  %d instances, %d live", len(f.members), live)
	if f.filter != "" {
		title += fmt.Sprintf("  filter %q: %d shown", f.filter, len(f.rows))
	}
	var body []string
	var head strings.Builder
	shown := shownColumns(f.width)
	for _, i := range shown {
		c := fleetColumns[i]
		t := c.title
		if i == f.sortCol {
			t += map[bool]string{false: "↑", true: "↓"}[f.sortDesc]
		}
		head.WriteString(fmt.Sprintf("%-*s ", c.width, t))
	}
	body = append(body, f.styles.Header.Render(strings.TrimRight(head.String(), " ")))
	resultRows := min(len(f.results), f.resultRows())
	tableRows := max(f.height-4-len(body)-resultRows, 1)
	start := 0
	if f.cursor >= tableRows {
		start = f.cursor - tableRows + 1
	}
	for i := start; i < len(f.rows) && i < start+tableRows; i++ {
		m := f.rows[i]
		var line strings.Builder
		for _, ci := range shown {
			c := fleetColumns[ci]
			cell := seen(m, now)
			if c.key != nil {
				cell = c.key(m)
			}
			line.WriteString(fmt.Sprintf("%-*s ", c.width, truncate(cell, c.width)))
		}
		s := strings.TrimRight(line.String(), " ")
		switch {
		case i == f.cursor:
			s = f.styles.Selected.Render(fit(s, f.width))
		case m.Gone, !f.reachable: // what was last heard, not what is
			s = f.styles.Faint.Render(s)
		case m.Conflict != "":
			s = f.styles.Error.Render(s)
		}
		body = append(body, s)
	}
	if len(f.rows) == 0 {
		msg := "  no instance has answered yet: games join with inspector.Options{Broker: ...} (or ecsinspect fleet)"
		if len(f.members) > 0 {
			msg = "  no instance passes the filter (esc clears it)"
		}
		body = append(body, f.styles.Faint.Render(msg))
	}
	for len(body) < tableRows+1 {
		body = append(body, "")
	}
	shownResults := f.results[min(f.scroll, len(f.results)):]
	for i, r := range shownResults {
		if i == resultRows-1 && len(shownResults) > resultRows {
			body = append(body, f.styles.Faint.Render(fmt.Sprintf("  … %d more (pgdn; pgup back)", len(shownResults)-i)))
			break
		}
		if i == resultRows {
			break
		}
		body = append(body, "  "+r)
	}
	bottom := f.styles.Faint.Render("enter attach  / filter  s S sort  : command on all shown (query EXPR, pause, watch EXPR)  ? help  q quit")
	switch {
	case f.inputKind != 0:
		bottom = string(f.inputKind) + f.input.View()
	case f.filterErr != "":
		bottom = f.styles.Error.Render(f.filterErr)
	case f.flashText != "":
		bottom = f.styles.Flash.Render(printable.Text(f.flashText)) // errors carry a broker's or a game's words
	case f.cursor < len(f.rows) && f.rows[f.cursor].Conflict != "":
		bottom = f.styles.Error.Render("! " + f.rows[f.cursor].Conflict + ": the row shows the key first heard")
	}
	state := fmt.Sprintf(" FLEET | %d live of %d", live, len(f.members))
	if n := f.roster.Bad.Load() + f.roster.Forged.Load(); n > 0 {
		state += fmt.Sprintf(" | %d bad or forged announcements ignored", n)
	}
	conflicts := 0
	for _, m := range f.members {
		if m.Conflict != "" {
			conflicts++
		}
	}
	if conflicts > 0 {
		state += fmt.Sprintf(" | %d names announced with another key (!)", conflicts)
	}
	status := f.styles.Status.Render(fit(state, f.width))
	if !f.reachable {
		bottom = f.styles.Error.Render("broker unreachable: " + f.brokerWhy + " (the games may be running: nothing is heard from anyone)")
	}
	return screen(title, body, bottom, status, f.width, f.height)
}

// resultRows is how many lines the results pane takes at most.
func (f *fleetModel) resultRows() int { return max(f.height/3, 3) }

// shownColumns are the columns that fit in width, in order: on a narrow
// terminal HOST, GAME, TPS and FRAME p99 go first, so INSTANCE, TICK,
// ENTITIES, PAUSED, HITS and SEEN stay (at 80 columns too).
func shownColumns(width int) []int {
	drop := map[string]bool{}
	total := func() int {
		n := 0
		for _, c := range fleetColumns {
			if !drop[c.title] {
				n += c.width + 1
			}
		}
		return n - 1
	}
	for _, t := range []string{"HOST", "GAME", "TPS", "FRAME p99"} {
		if total() <= width {
			break
		}
		drop[t] = true
	}
	var out []int
	for i, c := range fleetColumns {
		if !drop[c.title] {
			out = append(out, i)
		}
	}
	return out
}

// truncate cuts s to n cells with an ellipsis.
func truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:max(n-1, 0)]) + "…"
}
