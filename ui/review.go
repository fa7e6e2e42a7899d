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
		to = p.idx - 1
	case "]":
		to = p.idx + 1
	case "{":
		to = p.keyframe(-1)
	case "}":
		to = p.keyframe(+1)
	case "g", "home":
		to = 0
	case "G", "end":
		to = len(p.rec.Frames) - 1
	case "t":
		m.editing, m.editPath = true, "go to tick"
		m.edit.SetValue("")
		return m, m.edit.Focus(), true
	case "c":
		if m.compareFrom < 0 {
			m.compareFrom = p.idx
			m.setFlash(fmt.Sprintf("compare: from tick %d; move to another tick and press c again", p.tick()), false)
			return m, nil, true
		}
		m.compare = m.compareTicks(m.compareFrom, p.idx)
		m.compareFrom = -1
		return m, nil, true
	case " ", ".", "e", "x", "D", "n", "a":
		m.setFlash("a recording cannot be changed or run: those keys are for a live game (attach)", true)
		return m, nil, true
	default:
		return m, nil, false
	}
	return m.seekTo(to)
}

func (m *model) seekTo(i int) (tea.Model, tea.Cmd, bool) {
	if err := m.play.seek(i); err != nil {
		m.setFlash(err.Error(), true)
		return m, nil, true
	}
	return m, m.play.refresh(), true
}

func (m *model) gotoTick(s string) (tea.Model, tea.Cmd) {
	t, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		m.setFlash(fmt.Sprintf("%q is not a tick", s), true)
		return m, nil
	}
	if err := m.play.seekTick(t); err != nil {
		m.setFlash(err.Error(), true)
		return m, nil
	}
	if m.play.asOf != "" {
		m.setFlash(m.play.asOf, false)
	}
	return m, m.play.refresh()
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
	bar[p.idx*(w-1)/max(n-1, 1)] = '█'
	first, last := p.rec.Frames[0].Tick, p.rec.Frames[n-1].Tick
	return fmt.Sprintf("%d %s %d  [ ] { } g G t c", first, string(bar), last)
}

// compareTicks says what changed between two frames: entities spawned,
// despawned and changed (field by field), archetype counts, resources.
func (m *model) compareTicks(a, b int) []string {
	p := m.play
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
	lines[0] = m.styles.Header.Render(lines[0] + "  (j k scroll, any other key closes)")
	return lines
}
