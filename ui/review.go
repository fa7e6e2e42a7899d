package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol/recording"
)

// timeline is a review's position in its recording and the keys that
// move it: [ ] frames, { } keyframes, g G start and end, t a tick, c
// compares two ticks. It draws the bar on the bottom line and has the
// keys before the panes do.
type timeline struct {
	*common
	box
	pos         reviewPos
	compareFrom int // the frame marked by c, or -1
}

func newTimeline(c *common, pos reviewPos) *timeline {
	return &timeline{common: c, pos: pos, compareFrom: -1}
}

func (t *timeline) SetSize(width, height int) { t.box = box{width, height} }

// KeyMap is the timeline's keys, for the hints and help of a review.
func (t *timeline) KeyMap() []key.Binding { return reviewKeys }

// reviewKeys are the timeline's keys.
var reviewKeys = []key.Binding{
	key.NewBinding(key.WithKeys("[", "]"), key.WithHelp("[ ]", "frame")),
	key.NewBinding(key.WithKeys("{", "}"), key.WithHelp("{ }", "keyframe")),
	key.NewBinding(key.WithKeys("<", ">"), key.WithHelp("< >", "first/last frame (g G: the list's top and bottom)")),
	key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "go to tick")),
	key.NewBinding(key.WithKeys("c"), key.WithHelp("c c", "compare two ticks")),
	key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "first tick a query holds")),
}

// Update takes a seek's or a comparison's outcome, and the timeline's
// keys; own reports that the key was the timeline's.
func (t *timeline) Update(msg tea.Msg) (cmd tea.Cmd, own bool) {
	switch msg := msg.(type) {
	case seekedMsg:
		return t.seeked(msg), true
	case compareMsg:
		return t.nav.push(&compareScreen{common: t.common, lines: msg.lines}), true
	case firstMsg:
		return t.first(msg), true
	case tea.KeyMsg:
		return t.key(msg)
	}
	return nil, false
}

func (t *timeline) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	p := t.play
	to := -1
	switch msg.String() {
	case "[":
		to = t.pos.idx - 1
	case "]":
		to = t.pos.idx + 1
	case "{":
		to = p.keyframe(t.pos.idx, -1)
	case "}":
		to = p.keyframe(t.pos.idx, +1)
	case "<", "home":
		to = 0
	case ">", "end":
		to = len(p.rec.Frames) - 1
	case "t":
		return t.nav.push(newPrompt(t.common, promptTick, "go to tick ", "enter goes there (or to the recorded tick before it)", "",
			func(text string) (tea.Cmd, string) { return t.gotoTick(text), "" })), true
	case "c":
		if t.compareFrom < 0 {
			t.compareFrom = t.pos.idx
			t.nav.flash(fmt.Sprintf("compare: from tick %d; move to another tick and press c again", t.pos.tick), false)
			return nil, true
		}
		from := t.compareFrom
		t.compareFrom = -1
		t.nav.flash("comparing…", false)
		return t.compareCmd(from, t.pos.idx), true
	case "F":
		return t.nav.push(newPrompt(t.common, promptTick, "first tick where ", "a query (Energy.Value<-30): every frame is read once, and the review goes to the first tick it holds at", "",
			func(text string) (tea.Cmd, string) {
				t.nav.flash("reading every frame for "+text+"…", false)
				return t.firstCmd(strings.TrimSpace(text)), ""
			})), true
	case " ", ".", "e", "x", "D", "n", "a", "r", "P":
		t.nav.flash("a recording cannot be changed or run: those keys are for a live game (attach)", true)
		return nil, true
	default:
		return nil, false
	}
	// The frames are read and applied in a command, off the UI's
	// goroutine; seekedMsg brings the position back.
	return func() tea.Msg { return p.seekedAfter(p.seek(to)) }, true
}

// firstMsg is a scan's answer: when the query holds.
type firstMsg struct {
	qt  recording.QueryTicks
	err error
}

// firstCmd reads every frame for the first tick expr holds at, on the
// player's second handle, off the UI's goroutine.
func (t *timeline) firstCmd(expr string) tea.Cmd {
	p := t.play
	return func() tea.Msg {
		p.historyMu.Lock()
		defer p.historyMu.Unlock()
		r, err := p.secondReplay()
		if err != nil {
			return firstMsg{err: err}
		}
		qt, err := r.ScanQuery(expr)
		return firstMsg{qt: qt, err: err}
	}
}

// first goes to the first tick the scan found, saying when the query
// holds.
func (t *timeline) first(msg firstMsg) tea.Cmd {
	q := msg.qt
	switch {
	case msg.err != nil:
		t.nav.flash(msg.err.Error(), true)
		return nil
	case !q.Held:
		t.nav.flash(fmt.Sprintf("%s never holds in the %d frames", q.Expr, q.Read), true)
		return nil
	}
	var who []string
	for _, e := range q.FirstMatches {
		who = append(who, e.String())
	}
	for _, e := range q.FirstDead {
		who = append(who, e.String()+"'s last state (o "+e.String()+")")
	}
	note := fmt.Sprintf("%s first holds at tick %d for %s; last at %d; in %d of %d frames", q.Expr, q.First, strings.Join(who, ", "), q.Last, q.Frames, q.Read)
	if c := q.FirstCaveat(); c != "" {
		note += "; " + c
	}
	p := t.play
	return func() tea.Msg {
		m := p.seekedAfter(p.seekTick(q.First)).(seekedMsg)
		m.note = note
		return m
	}
}

func (t *timeline) gotoTick(s string) tea.Cmd {
	tick, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		t.nav.flash(fmt.Sprintf("%q is not a tick", s), true)
		return nil
	}
	p := t.play
	return func() tea.Msg { return p.seekedAfter(p.seekTick(tick)) }
}

// reviewPos is where the review stands, as the screen shows it.
type reviewPos struct {
	idx   int
	tick  uint64
	alive int
	asOf  string
}

// seekedMsg is a seek's outcome.
type seekedMsg struct {
	pos  reviewPos
	err  error
	note string // what the seek was for, said once it is done
}

// seekedAfter reports where a seek left the player.
func (p *player) seekedAfter(err error) tea.Msg {
	p.mu.Lock()
	defer p.mu.Unlock()
	return seekedMsg{pos: reviewPos{idx: p.idx, tick: p.rec.Frames[p.idx].Tick, alive: p.alive, asOf: p.asOf}, err: err}
}

// seeked takes a seek's outcome: the position, and fresh frames.
func (t *timeline) seeked(msg seekedMsg) tea.Cmd {
	if msg.err != nil {
		t.nav.flash(msg.err.Error(), true)
		return nil
	}
	from := t.pos.idx
	t.pos = msg.pos
	switch rec := t.play.rec; {
	case msg.pos.asOf != "":
		t.nav.flash(msg.pos.asOf, false)
	case abs(msg.pos.idx-from) == 1: // a step: say what it stepped over
		later := max(from, msg.pos.idx)
		if skipped := rec.SkippedBefore(later); skipped > 0 {
			t.nav.flash(fmt.Sprintf("crossed a gap: ticks %d-%d were not recorded (%s)", rec.Frames[later-1].Tick+1, rec.Frames[later].Tick-1, rec.GapWhy(later)), false)
		}
	default:
		if gaps, ticks := rec.GapsBetween(from, msg.pos.idx); gaps > 0 {
			t.nav.flash(fmt.Sprintf("crossed %s: %d ticks between were not recorded", plural(gaps, "gap"), ticks), false)
		}
	}
	if msg.note != "" {
		t.nav.flash(msg.note, false)
	}
	return t.play.refresh()
}

// compareMsg carries a comparison of two ticks, made off the UI goroutine.
type compareMsg struct{ lines []string }

func (t *timeline) compareCmd(a, b int) tea.Cmd {
	p, header := t.play, t.styles.Header
	return func() tea.Msg { return compareMsg{compareTicks(p, header.Render, a, b)} }
}

// View draws where the review stands: a bar over the recording with
// keyframes (┼) and gaps (×: ticks not recorded before that frame) marked.
func (t *timeline) View() string {
	p := t.play
	n := len(p.rec.Frames)
	w := max(t.width-46, 10)
	bar := []rune(strings.Repeat("─", w))
	legend := ""
	for i, f := range p.rec.Frames {
		switch at := i * (w - 1) / max(n-1, 1); {
		case p.rec.SkippedBefore(i) > 0:
			bar[at], legend = '×', " ×gap"
		case f.Keyframe && bar[at] != '×':
			bar[at] = '┼'
		}
	}
	bar[t.pos.idx*(w-1)/max(n-1, 1)] = '█'
	first, last := p.rec.Frames[0].Tick, p.rec.Frames[n-1].Tick
	return fmt.Sprintf("%d %s %d  [ ] { } < > t c%s", first, string(bar), last, legend)
}

// compareTicks says what changed between two frames: entities spawned,
// despawned and changed (field by field), archetype counts, resources.
func compareTicks(p *player, header func(...string) string, a, b int) []string {
	if a > b {
		a, b = b, a
	}
	ra, rb := recording.NewReplay(p.rec), recording.NewReplay(p.rec)
	sa, err := ra.At(a)
	if err != nil {
		return []string{"cannot rebuild frame " + strconv.Itoa(a+1) + ": " + err.Error()}
	}
	sb, err := rb.At(b)
	if err != nil {
		return []string{"cannot rebuild frame " + strconv.Itoa(b+1) + ": " + err.Error()}
	}
	lines := client.DiffLines(recording.Diff(sa, sb), 5000)
	lines[0] = header(lines[0] + "  (j k scroll, any other key closes)")
	if gaps, ticks := p.rec.GapsBetween(a, b); gaps > 0 {
		lines = slices.Insert(lines, 1, fmt.Sprintf("note: %d ticks between them were not recorded, in %s: what changed there is folded into the frames after", ticks, plural(gaps, "gap")))
	}
	return lines
}

// plural is "1 gap", "3 gaps".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
