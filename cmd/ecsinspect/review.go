package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

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
			m.setFlash(fmt.Sprintf("compare: from tick %d; move to another tick and press c again", p.sum.Tick), false)
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
	model, cmd, _ := m.seekTo(m.play.rec.Seek(t))
	return model, cmd
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

// compareTicks says what changed between two frames: counts, archetypes,
// and, where snapshots cover both, entities spawned, despawned and changed.
func (m *model) compareTicks(a, b int) []string {
	p := m.play
	if a > b {
		a, b = b, a
	}
	type state struct {
		sum   *protocol.Summary
		snap  *protocol.Snapshot
		snapI int
		fake  bool
	}
	at := func(i int) state {
		if err := p.seek(i); err != nil {
			return state{}
		}
		return state{p.sum, p.snap, p.snapI, p.fake}
	}
	cur := p.idx
	A, B := at(a), at(b)
	_ = p.seek(cur)
	sa, pa, sb, pb := A.sum, A.snap, B.sum, B.snap
	if sa == nil || sb == nil {
		return []string{"cannot read one of the frames"}
	}
	out := []string{
		m.styles.Header.Render(fmt.Sprintf("tick %d → tick %d", sa.Tick, sb.Tick)),
		fmt.Sprintf("entities %d → %d (%+d)", sa.Entities, sb.Entities, sb.Entities-sa.Entities),
	}
	if A.fake || B.fake { // a snapshot numbers its tables, not archetypes
		return append(out, "", m.styles.Faint.Render("archetypes compare between summaries; one of these ticks has only the snapshot"))
	}
	counts := map[uint32][2]int{}
	for _, ar := range sa.Archetypes {
		c := counts[ar.ID]
		c[0] = ar.Len
		counts[ar.ID] = c
	}
	for _, ar := range sb.Archetypes {
		c := counts[ar.ID]
		c[1] = ar.Len
		counts[ar.ID] = c
	}
	ids := make([]int, 0, len(counts))
	for id := range counts {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	for _, id := range ids {
		if c := counts[uint32(id)]; c[0] != c[1] {
			out = append(out, fmt.Sprintf("  archetype %d: %d → %d", id, c[0], c[1]))
		}
	}
	if pa == nil || pb == nil || A.snapI == B.snapI {
		return append(out, "", m.styles.Faint.Render("entity by entity needs a snapshot at each tick; this recording has one at tick "+snapTicks(p)))
	}
	ea, eb := entitySet(pa), entitySet(pb)
	var spawned, despawned, changed []string
	for e, v := range eb {
		if old, ok := ea[e]; !ok {
			spawned = append(spawned, e.String())
		} else if old != v {
			changed = append(changed, e.String())
		}
	}
	for e := range ea {
		if _, ok := eb[e]; !ok {
			despawned = append(despawned, e.String())
		}
	}
	list := func(label string, xs []string) string {
		sort.Strings(xs)
		if len(xs) > 12 {
			xs = append(xs[:12], "…")
		}
		return fmt.Sprintf("%s %d: %s", label, len(xs), strings.Join(xs, " "))
	}
	return append(out, list("spawned", spawned), list("despawned", despawned), list("values changed", changed))
}

func snapTicks(p *player) string {
	var ts []string
	for _, i := range p.snaps {
		ts = append(ts, strconv.FormatUint(p.rec.Frames[i].Tick, 10))
	}
	return strings.Join(ts, ", ")
}

// entitySet maps each entity of a snapshot to its values, printed.
func entitySet(s *protocol.Snapshot) map[protocol.EntityID]string {
	out := map[protocol.EntityID]string{}
	for _, t := range s.Tables {
		for row, e := range t.Entities {
			var b strings.Builder
			b.WriteString(out[e])
			for _, col := range t.Columns {
				b.WriteString(col[row].String())
			}
			out[e] = b.String()
		}
	}
	return out
}

// runOpen opens the UI on a recording.
func runOpen(args []string) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("want one .ecsrec file: ecsinspect open FILE.ecsrec")
	}
	p, err := openPlayer(args[0])
	if err != nil {
		return err
	}
	defer p.close()
	m := newModel(p, args[0])
	m.play = p
	m.conn = connMsg{state: stateConnected}
	prog := tea.NewProgram(m, tea.WithAltScreen())
	_, err = prog.Run()
	return err
}
