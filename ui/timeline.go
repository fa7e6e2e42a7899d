package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// The frame timeline, the Systems view's other face (b): the last frames
// as columns, each a bar of its systems' time stacked by stage (a glyph a
// stage, bottom up in the order the stages run), scaled to the slowest
// frame shown; "!" over a frame that took longer than the game's own
// interval (the median frame, dotted across the chart) by half again, or
// whose work outran it;
// "g" under a frame a garbage collection's pause ended in. ←/→ pick a
// frame, whose systems are listed under the chart.

// stageGlyphs draw the stages' parts of a bar, a glyph each, in order.
var stageGlyphs = []rune("█▓▒░▚▞")

// frameChart is the chart's state: the frame picked, counted from the
// newest (0: the newest).
type frameChart struct {
	back int
}

// frameSystems is each frame's systems' run times, aligned with the
// summary's frames: a system's Recent holds its runs of the same frames,
// newest last (a system that ran fewer times lines up from the newest).
func frameSystems(s *protocol.Summary, i int) []int64 {
	out := make([]int64, len(s.Systems))
	for j, sys := range s.Systems {
		if k := len(sys.Recent) - (len(s.Frames) - i); k >= 0 && k < len(sys.Recent) {
			out[j] = sys.Recent[k]
		}
	}
	return out
}

// interval is the game's own frame interval: the median frame's time.
func interval(frames []protocol.FrameStat) int64 {
	ns := make([]int64, 0, len(frames))
	for _, f := range frames {
		ns = append(ns, f.Ns)
	}
	slices.Sort(ns)
	if len(ns) == 0 {
		return 0
	}
	return ns[len(ns)/2]
}

// slow reports whether a frame took half again the interval, or its work
// outran the interval.
func slow(f protocol.FrameStat, every int64) bool {
	return every > 0 && (f.Ns > every+every/2 || f.Work > every)
}

// view draws the timeline for a pane of width x height.
func (tl *frameChart) view(st Styles, s *protocol.Summary, width, height int) []string {
	if s == nil || len(s.Frames) == 0 {
		return []string{"no frames yet: the timeline fills as the game runs (b: back to the list)"}
	}
	stages := stagesOf(s.Systems)
	cols := min(len(s.Frames), max(width-2, 1))
	frames := s.Frames[len(s.Frames)-cols:]
	tl.back = min(max(tl.back, 0), cols-1)
	picked := cols - 1 - tl.back
	every := interval(s.Frames)
	// Each column's stage totals.
	parts := make([][]int64, cols)
	var top int64 = 1 // the scale: the busiest frame's work or bar
	for c := range cols {
		runs := frameSystems(s, len(s.Frames)-cols+c)
		parts[c] = make([]int64, len(stages))
		var bar int64
		for j, sys := range s.Systems {
			parts[c][slices.Index(stages, sys.Stage)] += runs[j]
			bar += runs[j]
		}
		top = max(top, frames[c].Work, bar)
	}
	// The interval is drawn when it is near the bars; a game paced far
	// below its interval keeps the scale of its work.
	intervalShown := every > 0 && every <= top*2
	if intervalShown {
		top = max(top, every)
	}
	chartH := max(height-6-len(s.Systems), 4)
	var out []string
	legend := make([]string, len(stages))
	for i, name := range stages {
		legend[i] = string(stageGlyphs[i%len(stageGlyphs)]) + " " + name
	}
	scale := fmt.Sprintf("· the game's interval %s", client.Duration(every))
	if !intervalShown {
		scale = fmt.Sprintf("the game's interval %s is off the scale", client.Duration(every))
	}
	out = append(out, fit(fmt.Sprintf("last %d frames, scaled to %s; %s; %s", cols, client.Duration(top), scale, strings.Join(legend, "  ")), width))
	var marks strings.Builder
	for c, f := range frames {
		switch {
		case c == picked:
			marks.WriteRune('▼')
		case slow(f, every):
			marks.WriteRune('!')
		default:
			marks.WriteRune(' ')
		}
	}
	out = append(out, marks.String())
	// The bars, top row first: a cell is filled by the stage whose part
	// of the bar reaches its height.
	everyRow := -1 // the interval's height, dotted where no bar reaches
	if intervalShown {
		everyRow = int(every * int64(chartH) / top)
	}
	for row := chartH - 1; row >= 0; row-- {
		var b strings.Builder
		for c := range cols {
			cellLow := top * int64(row) / int64(chartH)
			r := ' '
			var sum int64
			for i, v := range parts[c] {
				sum += v
				if sum > cellLow {
					r = stageGlyphs[i%len(stageGlyphs)]
					break
				}
			}
			if r == ' ' && row == everyRow {
				r = '·'
			}
			b.WriteRune(r)
		}
		out = append(out, b.String())
	}
	var gcs strings.Builder
	for _, f := range frames {
		if f.GC > 0 {
			gcs.WriteRune('g')
		} else {
			gcs.WriteRune('─')
		}
	}
	out = append(out, gcs.String())
	f := frames[picked]
	head := fmt.Sprintf("frame %d: %s, work %s", f.Tick, client.Duration(f.Ns), client.Duration(f.Work))
	if slow(f, every) {
		head += fmt.Sprintf(" (slow: the game's interval is %s)", client.Duration(every))
	}
	if f.GC > 0 {
		head += fmt.Sprintf("; %d garbage collection(s), %s paused", f.GC, client.Duration(f.GCPauseNs))
	}
	out = append(out, st.Title.Render(fit(head, width)))
	runs := frameSystems(s, len(s.Frames)-cols+picked)
	for j, sys := range s.Systems {
		out = append(out, fit(fmt.Sprintf("  %s %-16s %9s  %s", string(stageGlyphs[slices.Index(stages, sys.Stage)%len(stageGlyphs)]), sys.Name, client.Duration(runs[j]), sys.Stage), width))
	}
	out = append(out, st.Faint.Render(fit("←/→ pick a frame • b back to the list", width)))
	return out
}
