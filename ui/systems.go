package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The systems pane: timings by stage against the frame budget, access.

// systemsPane lists the systems by stage, each stage against the frame
// budget, with timings, recent history and declared access.
type systemsPane struct {
	*common
	box
	list
	// timeline, when set, shows the frame timeline instead of the list
	// (timeline.go).
	timeline *frameChart
}

func (p *systemsPane) Title() string         { return "Systems" }
func (p *systemsPane) KeyMap() []key.Binding { return p.keys.ShortHelp() }

func (p *systemsPane) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok || p.summary == nil {
		return nil
	}
	switch {
	case key.Matches(km, p.keys.Timeline):
		if p.timeline == nil {
			p.timeline = &frameChart{}
		} else {
			p.timeline = nil
		}
	case p.timeline != nil && key.Matches(km, p.keys.Left):
		p.timeline.back++
	case p.timeline != nil && key.Matches(km, p.keys.Right):
		p.timeline.back = max(p.timeline.back-1, 0)
	default:
		sys := p.summary.Systems
		p.move(p.keys, km, len(sys)+len(stagesOf(sys)), p.height)
	}
	return nil
}

func (p *systemsPane) View() []string {
	if len(p.summary.Systems) == 0 {
		return []string{"no systems reported (give the agent the schedule: Options.Schedule)"}
	}
	if p.timeline != nil {
		return p.timeline.view(p.styles, p.summary, p.width, p.height)
	}
	// Stages and their systems in the order the schedule runs them (a
	// stop inside the frame marks which ran: the order must be the run's).
	var stages []string
	byStage := map[string][]protocol.System{}
	for _, s := range p.summary.Systems {
		if _, ok := byStage[s.Stage]; !ok {
			stages = append(stages, s.Stage)
		}
		byStage[s.Stage] = append(byStage[s.Stage], s)
	}
	narrow := p.width < 110 // fewer columns, so the access stays in view
	head := fmt.Sprintf("%-16s %9s %9s %9s %8s %17s  %-24s  %s", "system", "last", "mean", "max (120)", "runs", "alloc/run", "recent", "access")
	if narrow {
		head = fmt.Sprintf("%-14s %9s %9s %9s  %-8s  %s", "system", "last", "mean", "alloc/run", "recent", "access")
	}
	var rows []string
	if h := p.summary.Halt; h != nil {
		rows = append(rows, p.styles.Title.Render(fmt.Sprintf("frame %d stopped %s (▶): ✓ ran, · still to run, and the stage's commands", p.summary.Tick, haltWhere(h))))
	}
	for _, st := range stages {
		sys := byStage[st]
		var sum int64
		for _, s := range sys {
			sum += s.Mean
		}
		rows = append(rows, p.styles.Title.Render(fmt.Sprintf("stage %s: %s a frame%s", st, client.Duration(sum), frameBudget(p.summary.FrameNs))))
		for _, s := range sys {
			if h := p.summary.Halt; h != nil {
				s.Name = haltMark(h, s.Name) + s.Name
			}
			if narrow {
				rows = append(rows, fmt.Sprintf("%-14s %9s %9s %9s  %s  %s", s.Name, client.Duration(s.Last), client.Duration(s.Mean), allocCell(s, false), sparkline(s.Recent, 8), access(s)))
			} else {
				rows = append(rows, fmt.Sprintf("%-16s %9s %9s %9s %8d %17s  %s  %s", s.Name, client.Duration(s.Last), client.Duration(s.Mean), client.Duration(s.Max), s.Count,
					allocCell(s, true), sparkline(s.Recent, 24), access(s)))
			}
			if s.Skipped > 0 {
				rows = append(rows, p.styles.Error.Render(skippedLine(s)))
			}
		}
	}
	p.clamp(len(rows))
	return p.draw(p.styles, p.box, head, rows)
}

// allocCell is what a system's run allocates: bytes (and objects, wide),
// "shared" when its runs ran beside others, "-" when not measured.
func allocCell(s protocol.System, objects bool) string {
	switch {
	case s.AllocRuns > 0 && objects:
		return fmt.Sprintf("%s %s", protocol.ByteSize(int64(s.AllocBytes)), countObjects(s.AllocObjects))
	case s.AllocRuns > 0:
		return protocol.ByteSize(int64(s.AllocBytes))
	case s.AllocShared > 0:
		return "shared"
	}
	return "-"
}

// countObjects is a mean count of objects, short: "0 obj", "3.5 obj",
// "1.2k obj".
func countObjects(n float64) string {
	switch {
	case n >= 1000:
		return fmt.Sprintf("%.1fk obj", n/1000)
	case n == float64(int64(n)):
		return fmt.Sprintf("%d obj", int64(n))
	}
	return fmt.Sprintf("%.1f obj", n)
}

// frameBudget is what a stage's time is measured against: the game's own
// frame, from one frame's start to the next (frameNs; 0 while unknown).
func frameBudget(frameNs int64) string {
	if frameNs <= 0 {
		return ""
	}
	return fmt.Sprintf(" of the game's %s frame (%.0f Hz)", client.Duration(frameNs), 1e9/float64(frameNs))
}

// access says what a system reads and writes.
func access(s protocol.System) string {
	var parts []string
	if len(s.Reads) > 0 {
		parts = append(parts, "r:"+strings.Join(s.Reads, ","))
	}
	if len(s.Writes) > 0 {
		parts = append(parts, "w:"+strings.Join(s.Writes, ","))
	}
	if len(parts) == 0 {
		return "(declares no access)"
	}
	return strings.Join(parts, " ")
}

// sparkline draws the last n samples as block characters, from zero to
// their greatest.
func sparkline(samples []int64, n int) string { return sparkScaled(samples, n, true) }

// trendline draws the last n samples as block characters from their least
// to their greatest: how a count moves, not how big it is.
func trendline(samples []int64, n int) string { return sparkScaled(samples, n, false) }

func sparkScaled(samples []int64, n int, fromZero bool) string {
	if len(samples) > n {
		samples = samples[len(samples)-n:]
	}
	var lo, hi int64
	if len(samples) > 0 && !fromZero {
		lo, hi = samples[0], samples[0]
	}
	for _, s := range samples {
		lo, hi = min(lo, s), max(hi, s)
	}
	blocks := []rune("▁▂▃▄▅▆▇█")
	var b strings.Builder
	for _, s := range samples {
		i := 0 // all zero, from zero: the lowest
		switch {
		case hi > lo:
			i = int((s - lo) * int64(len(blocks)-1) / (hi - lo))
		case !fromZero: // all alike: the middle
			i = len(blocks) / 2
		}
		b.WriteRune(blocks[i])
	}
	return b.String() + spaces(n-len(samples))
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

// skippedLine says how many of a system's queued commands were skipped,
// and the newest reason: a change that failed is never silent.
func skippedLine(s protocol.System) string {
	line := fmt.Sprintf("  ⚠ %d commands it queued were skipped", s.Skipped)
	if n := len(s.SkippedWhy); n > 0 {
		r := s.SkippedWhy[n-1]
		line += fmt.Sprintf("; newest, tick %d: %s", r.Tick, r.Why)
	}
	return line
}
