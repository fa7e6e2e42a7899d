package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The screen's frame around the panes: tabs, the bottom line (prompt,
// question, flash, hints), the status bar, and the layout of all of it.
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

// tabs draws the view names, the one on screen marked, tighter on a narrow
// terminal: padded, then unpadded, then cut to four letters, whichever fits.
func (m *model) tabs() string {
	// The narrowest names the pane on screen whole and the others by
	// their keys: "1 2 3 [4 Systems] 5": never names cut to "Over Arch".
	formats := []func(i int, n string, on bool) string{
		func(i int, n string, _ bool) string { return fmt.Sprintf(" %d %s ", viewKey(i), n) },
		func(i int, n string, _ bool) string { return fmt.Sprintf(" %d %s", viewKey(i), n) },
		func(i int, n string, _ bool) string { return fmt.Sprintf(" %d %s", viewKey(i), shortTitle(n)) },
		func(i int, n string, on bool) string {
			if on {
				return fmt.Sprintf(" %d %s", viewKey(i), n)
			}
			return fmt.Sprintf(" %d", viewKey(i))
		},
	}
	var parts []string
	for _, format := range formats {
		width := 0
		parts = parts[:0]
		for i, p := range m.panes {
			n := p.Title()
			label := func(i int, n string) string { return format(i, n, i == m.view && !m.detail.shown) }
			l := label(i, n)
			if i == m.view && !m.detail.shown {
				// Marked in text as well as in colour: visible with NO_COLOR too.
				l = "[" + strings.TrimSpace(l) + "]"
				if strings.HasPrefix(label(i, n), " ") {
					l = " " + l
				}
				parts = append(parts, m.styles.ActiveTab.Render(l))
			} else {
				parts = append(parts, m.styles.Tab.Render(l))
			}
			width += len([]rune(l))
		}
		if width <= m.width {
			return strings.Join(parts, "")
		}
	}
	return fit(strings.Join(parts, ""), m.width)
}

// shortTitle is a tab's name on a terminal too narrow for every name
// whole: the two longest shortened.
func shortTitle(n string) string {
	switch n {
	case "Overview":
		return "World"
	case "Archetypes":
		return "Arch"
	}
	return n
}

// bottomLine is the top modal's line (a prompt, a question), a flash,
// the review's timeline, or the hints of what has the keys.
func (m *model) bottomLine() string {
	flashing := m.flashText != "" && time.Since(m.flashAt) < 4*time.Second
	if md := m.top(); md != nil && md.Line() != "" {
		return md.Line()
	}
	switch {
	case flashing && m.flashErr:
		return m.styles.Error.Render(m.flashText)
	case flashing:
		return m.styles.Flash.Render(m.flashText)
	case m.timeline != nil && m.top() == nil && !m.detail.shown:
		return m.timeline.View()
	}
	return m.shortHelp(m.hints())
}

// shortHelp is the help line of hints, drawn again only when the hints or
// the width change: the line is on every frame, the keys rarely change.
func (m *model) shortHelp(hints []key.Binding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", m.help.Width)
	for _, h := range hints {
		fmt.Fprintf(&b, "\x00%s\x01%s\x02%v", h.Help().Key, h.Help().Desc, h.Enabled())
	}
	if k := b.String(); k != m.helpLine.key || m.helpLine.out == "" {
		m.helpLine.key, m.helpLine.out = k, m.help.ShortHelpView(hints)
	}
	return m.helpLine.out
}

// hints are the keys of what has the screen now, for the bottom line.
func (m *model) hints() []key.Binding {
	k := m.keys
	switch md := m.top(); {
	case md != nil:
		return md.KeyMap()
	case m.detail.shown:
		return m.detail.KeyMap()
	case m.timeline != nil:
		return append(append([]key.Binding{k.Views}, m.timeline.KeyMap()...), k.Filter, k.Help, k.Quit)
	case m.fromFleet:
		return append([]key.Binding{k.Fleet}, m.focused().KeyMap()...)
	}
	return m.focused().KeyMap()
}

// helpGroups are the columns of the help screen for the mode: a review
// lists its timeline, not the keys that change a live game.
func (m *model) helpGroups() [][]key.Binding {
	k := m.keys
	if m.timeline != nil {
		return [][]key.Binding{
			{k.Views, k.NextView, k.PrevView, k.Help, k.Quit},
			{k.Up, k.Down, k.Left, k.Right, k.Sort, k.PageUp, k.PageDown, k.Enter, k.Back},
			m.timeline.KeyMap(),
			{k.Filter, k.Open, k.ToParent, k.Tree},
		}
	}
	// The view's own keys first, then every view's (those not already
	// listed).
	own := m.focused().KeyMap()
	listed := map[string]bool{}
	for _, b := range own {
		listed[b.Help().Key] = true
	}
	groups := [][]key.Binding{own}
	if m.fromFleet {
		groups = append(groups, []key.Binding{k.Fleet})
	}
	for _, g := range k.FullHelp() {
		var rest []key.Binding
		for _, b := range g {
			if !listed[b.Help().Key] {
				rest = append(rest, b)
			}
		}
		if len(rest) > 0 {
			groups = append(groups, rest)
		}
	}
	return groups
}

// statusBar says what the game is doing: connection, tick, frame, entities.
func (m *model) statusBar() string {
	var state string
	if m.timeline != nil {
		p, pos := m.play, m.timeline.pos
		parts := []string{"REVIEW", p.path, fmt.Sprintf("frame %d/%d", pos.idx+1, len(p.rec.Frames)), fmt.Sprintf("tick %d", pos.tick)}
		parts = append(parts, fmt.Sprintf("%d entities", pos.alive))
		if pos.asOf != "" {
			parts = append(parts, pos.asOf)
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
			state = "PAUSED (space resumes)"
		}
		if m.summary != nil && m.summary.Halt != nil {
			state = "STOPPED MID-FRAME (space resumes, . ends the frame)"
		}
		if m.readOnly && m.summary != nil && m.summary.Paused {
			state = strings.Fields(state)[0] + " (read-only: another client resumes)"
		}
	case stateReconnecting:
		state = fmt.Sprintf("reconnecting (%d)", m.conn.attempt)
	case stateClosed:
		state = "disconnected"
	}
	if m.readOnly {
		state += " read-only"
	}
	// Each part with how much it matters: a narrow terminal drops the
	// least needed whole, never cutting the address in the middle.
	var parts []statusPart
	add := func(rank int, text string) { parts = append(parts, statusPart{text, rank}) }
	add(0, state)
	if s := m.summary; s != nil {
		add(1, fmt.Sprintf("tick %d", s.Tick))
		if s.Halt != nil {
			add(1, haltWhere(s.Halt))
		}
		add(5, client.FrameFigures(s.WorkNs, s.FrameNs))
		add(6, fmt.Sprintf("%d entities", s.Entities))
		if r := m.rate.perSecond(); r > 0 && m.conn.state == stateConnected {
			add(2, fmt.Sprintf("%.1f ticks/s", r)) // how the game runs: kept before the figures
		}
	}
	if h := m.lastHit; h != nil && h.Paused && m.summary != nil && m.summary.Paused {
		add(3, fmt.Sprintf("⚑ watch %d at tick %d", h.Watch, h.Tick))
	}
	if m.rec != nil {
		frames, _, _ := m.rec.Progress()
		note := strconv.Itoa(frames)
		if dropped, _ := m.rec.Dropped(); dropped > 0 {
			note += fmt.Sprintf(", %d frames missed", dropped)
		}
		if per := m.rec.PerMinute(); per > 0 {
			note += ", +" + protocol.ByteSize(per) + "/min"
		}
		rec := fmt.Sprintf("● REC %s (%s)", m.rec.Path, note)
		add(2, rec)
	}
	if s := m.summary; s != nil && s.Agent.Recording != "" {
		add(4, "● game records "+s.Agent.Recording)
	}
	add(2, m.addr)
	return m.styles.Status.Render(fit(" "+fitParts(parts, m.width-1), m.width))
}

// statusPart is a part of the status bar and its rank: the higher, the
// sooner a narrow terminal drops it.
type statusPart struct {
	text string
	rank int
}

// fitParts joins the parts that fit in width, dropping the highest ranks
// first (the last of a rank first), each part whole.
func fitParts(parts []statusPart, width int) string {
	join := func() string {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.text
		}
		return strings.Join(texts, " │ ")
	}
	for len(parts) > 1 && ansi.StringWidth(join()) > width {
		drop := 0
		for i, p := range parts {
			if p.rank >= parts[drop].rank {
				drop = i
			}
		}
		parts = append(parts[:drop:drop], parts[drop+1:]...)
	}
	return join()
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// tickRate measures ticks per second over the last few seconds.
type tickRate struct {
	ticks []uint64
	at    []time.Time
}

// add notes a summary's tick at now.
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
