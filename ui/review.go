package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// reviewKey handles the timeline keys of a recording: [ ] frames, { }
// keyframes, g G start and end, t a tick, c compare two ticks.
func (m *model) reviewKey(msg tea.KeyMsg) (tea.Model, tea.Cmd, bool) {
	p := m.play
	to := -1
	switch msg.String() {
	case "[":
		to = m.rv.idx - 1
	case "]":
		to = m.rv.idx + 1
	case "{":
		to = p.keyframe(m.rv.idx, -1)
	case "}":
		to = p.keyframe(m.rv.idx, +1)
	case "g", "home":
		to = 0
	case "G", "end":
		to = len(p.rec.Frames) - 1
	case "t":
		return m, m.openPrompt(&prompt{kind: promptTick, label: "go to tick ", hint: "enter goes there (or to the recorded tick before it)",
			submit: func(text string) (tea.Cmd, string) {
				_, cmd := m.gotoTick(text)
				return cmd, ""
			}}, ""), true
	case "c":
		if m.compareFrom < 0 {
			m.compareFrom = m.rv.idx
			m.setFlash(fmt.Sprintf("compare: from tick %d; move to another tick and press c again", m.rv.tick), false)
			return m, nil, true
		}
		from := m.compareFrom
		m.compareFrom = -1
		m.setFlash("comparing…", false)
		return m, m.compareCmd(from, m.rv.idx), true
	case " ", ".", "e", "x", "D", "n", "a":
		m.setFlash("a recording cannot be changed or run: those keys are for a live game (attach)", true)
		return m, nil, true
	default:
		return m, nil, false
	}
	return m.seekTo(to)
}

// seekTo moves the review to frame i: the frames are read and applied in
// a command, off the UI's goroutine; seekedMsg brings the position back.
func (m *model) seekTo(i int) (tea.Model, tea.Cmd, bool) {
	p := m.play
	return m, func() tea.Msg { return p.seekedAfter(p.seek(i)) }, true
}

func (m *model) gotoTick(s string) (tea.Model, tea.Cmd) {
	t, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		m.setFlash(fmt.Sprintf("%q is not a tick", s), true)
		return m, nil
	}
	p := m.play
	return m, func() tea.Msg { return p.seekedAfter(p.seekTick(t)) }
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
	pos reviewPos
	err error
}

// seekedAfter reports where a seek left the player.
func (p *player) seekedAfter(err error) tea.Msg {
	p.mu.Lock()
	defer p.mu.Unlock()
	return seekedMsg{pos: reviewPos{idx: p.idx, tick: p.rec.Frames[p.idx].Tick, alive: p.alive, asOf: p.asOf}, err: err}
}

// seeked takes a seek's outcome: the position, and fresh frames.
func (m *model) seeked(msg seekedMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		m.setFlash(msg.err.Error(), true)
		return m, nil
	}
	m.rv = msg.pos
	if msg.pos.asOf != "" {
		m.setFlash(msg.pos.asOf, false)
	}
	return m, m.play.refresh()
}

// compareMsg carries a comparison of two ticks, made off the UI goroutine.
type compareMsg struct{ lines []string }

func (m *model) compareCmd(a, b int) tea.Cmd {
	p, header := m.play, m.styles.Header
	return func() tea.Msg { return compareMsg{compareTicks(p, header.Render, a, b)} }
}

// timeline draws where the review stands: a bar over the recording with
// keyframes marked.
func (m *model) timeline() string {
	p := m.play
	n := len(p.rec.Frames)
	w := max(m.width-40, 10)
	bar := []rune(strings.Repeat("─", w))
	for i, f := range p.rec.Frames {
		if f.Keyframe {
			bar[i*(w-1)/max(n-1, 1)] = '┼'
		}
	}
	bar[m.rv.idx*(w-1)/max(n-1, 1)] = '█'
	first, last := p.rec.Frames[0].Tick, p.rec.Frames[n-1].Tick
	return fmt.Sprintf("%d %s %d  [ ] { } g G t c", first, string(bar), last)
}

// compareTicks says what changed between two frames: entities spawned,
// despawned and changed (field by field), archetype counts, resources.
func compareTicks(p *player, header func(...string) string, a, b int) []string {
	if a > b {
		a, b = b, a
	}
	ra, rb := protocol.NewReplay(p.rec), protocol.NewReplay(p.rec)
	sa, err := ra.At(a)
	if err != nil {
		return []string{"cannot rebuild frame " + strconv.Itoa(a+1) + ": " + err.Error()}
	}
	sb, err := rb.At(b)
	if err != nil {
		return []string{"cannot rebuild frame " + strconv.Itoa(b+1) + ": " + err.Error()}
	}
	lines := client.DiffLines(protocol.Diff(sa, sb), 5000)
	lines[0] = header(lines[0] + "  (j k scroll, any other key closes)")
	return lines
}
