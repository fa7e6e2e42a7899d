package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/internal/printable"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// overviewPane is the world at a glance: tick, entities, slots, the
// game's memory, the agent.
type overviewPane struct {
	*common
	box
	// gc is the newest summary's collector counters, gcBefore the
	// earlier ones the rates are taken against (a second or more back).
	gc, gcBefore       *protocol.GCStats
	gcTick, beforeTick uint64
	gcAt, beforeAt     time.Time
	heaps              []int64 // the heap of the last summaries, oldest first
}

// heapsKept is how many summaries' heaps the Overview's heap line draws.
const heapsKept = 60

func (p *overviewPane) Title() string { return "Overview" }

// Update keeps the collector's counters of the summaries that come, for
// the rates the view shows.
func (p *overviewPane) Update(msg tea.Msg) tea.Cmd {
	m, ok := msg.(summaryMsg)
	if !ok || m.s.Agent.GC == nil {
		return nil
	}
	now := time.Now()
	if p.gc == nil || m.s.Tick < p.gcTick { // the first, or a new run
		p.gcBefore, p.beforeTick, p.beforeAt = m.s.Agent.GC, m.s.Tick, now
	} else if now.Sub(p.gcAt) >= time.Second || p.gcBefore == nil {
		p.gcBefore, p.beforeTick, p.beforeAt = p.gc, p.gcTick, p.gcAt
	}
	p.gc, p.gcTick, p.gcAt = m.s.Agent.GC, m.s.Tick, now
	if len(p.heaps) == heapsKept {
		p.heaps = p.heaps[1:]
	}
	p.heaps = append(p.heaps, int64(m.s.Agent.GC.Heap))
	return nil
}
func (p *overviewPane) KeyMap() []key.Binding { return p.keys.ShortHelp() }

func (p *overviewPane) View() []string {
	s := p.summary
	bytes := 0
	for _, a := range s.Archetypes {
		bytes += a.Bytes
	}
	state := "running"
	switch {
	case p.play != nil:
		state = "recorded"
	case s.Paused:
		state = "paused"
	}
	lines := []string{
		p.styles.Header.Render("World"),
		fmt.Sprintf("  tick %-12d %-32s %s", s.Tick, client.FrameFigures(s.WorkNs, s.FrameNs), state),
		fmt.Sprintf("  entities %-10d archetypes %-6d components %-4d memory %s", s.Entities, len(s.Archetypes), len(s.Components), protocol.ByteSize(bytes)),
	}
	lines = append(lines, p.trendLines(s.Frames)...)
	lines = append(lines, "",
		p.styles.Header.Render("Generations"),
		fmt.Sprintf("  alive %-10d free slots %-10d retired slots %-8d highest index %d", s.Stats.Alive, s.Stats.Free, s.Stats.Retired, s.Stats.Slots-1))
	if len(s.Recycled) > 0 {
		var parts []string
		for _, r := range s.Recycled {
			parts = append(parts, fmt.Sprintf("%d (gen %d)", r.Index, r.Generation))
		}
		lines = append(lines, "  most recycled: "+strings.Join(parts, ", "))
	}
	if st := s.Stale; st != nil {
		lines = append(lines, "", p.styles.Header.Render("Stale handles"))
		var by []string
		for _, c := range st.By {
			by = append(by, fmt.Sprintf("%s %d", c.By, c.Count))
		}
		lines = append(lines, fmt.Sprintf("  %d uses of handles to dead entities, by: %s", st.Total, strings.Join(by, ", ")))
		if n := len(st.Recent); n > 0 {
			u := st.Recent[n-1]
			lines = append(lines, fmt.Sprintf("  last: %s at tick %d by %s (slot now generation %d; o %s shows who despawned it)", u.Entity, u.Tick, u.By, u.Generation, u.Entity))
		}
	}
	if dg := s.Dangling; dg != nil && dg.N > 0 {
		lines = append(lines, "", p.styles.Header.Render("Dangling handles"),
			"  "+danglingCount(dg.N)+" in components and resources (0 lists them)")
		if len(dg.List) > 0 {
			lines = append(lines, "  newest: "+dg.List[0].String())
		}
		lines = append(lines, storedAfterLines(dg.List)...)
	}
	lines = append(lines, p.memoryLines(s.Agent.GC)...)
	if p.play != nil {
		return append(lines, p.recordingLines()...)
	}
	a := s.Agent
	lines = append(lines, "",
		p.styles.Header.Render("Agent"),
		fmt.Sprintf("  clients %-8d sent %-12s frames sent %d", a.Clients, protocol.ByteSize(int(a.BytesSent)), a.FramesSent),
		fmt.Sprintf("  coalesced %-6d dropped %-10d sync %s a frame", a.Coalesced, a.Dropped, client.Duration(a.SyncNs)))
	if rw := a.Rewind; rw != nil && rw.Frames == 0 && rw.Short != "" {
		lines = append(lines, wrapRow("  "+printable.Text(rw.Short), p.width, maxWrap)...)
	} else if rw != nil {
		lines = append(lines,
			fmt.Sprintf("  rewind ticks %d-%d: %d frames, %s of play (keeps %s)", rw.From, rw.To, rw.Frames,
				client.Duration(int64(rw.Seconds*1e9)), client.Duration(int64(rw.Window*1e9))),
			fmt.Sprintf("  newest %s ago; memory %s of %s, world copy %s", client.Duration(int64(rw.Age*1e9)),
				protocol.ByteSize(rw.Bytes), protocol.ByteSize(rw.Limit), protocol.ByteSize(rw.Copy)))
		if rw.Short != "" {
			lines = append(lines, wrapRow("  "+printable.Text(rw.Short), p.width, maxWrap)...)
		}
	}
	if a.Recording != "" {
		lines = append(lines, "  recording to "+a.Recording)
	}
	return lines
}

// recordingLines say, in review, what the file holds in place of the
// agent's telemetry (which is of the game as it was recorded, not of
// anything running now).
func (p *overviewPane) recordingLines() []string {
	rec := p.play.rec
	first, last := rec.Frames[0].Tick, rec.Frames[len(rec.Frames)-1].Tick
	lines := []string{"", p.styles.Header.Render("Recording"),
		"  " + p.play.path,
		fmt.Sprintf("  ticks %d-%d in %d frames (every frame the game ran)", first, last, len(rec.Frames))}
	if rec.Header.Hz > 0 {
		lines[len(lines)-1] = fmt.Sprintf("  ticks %d-%d in %d frames (%g a second)", first, last, len(rec.Frames), rec.Header.Hz)
	}
	if gaps, ticks := rec.Gaps(); gaps > 0 {
		lines = append(lines, fmt.Sprintf("  %d ticks not recorded in %d places (dump FILE --tick N in one says why)", ticks, gaps))
	}
	return lines
}

// memoryLines are the game's heap and collections (the Go runtime's
// counters), and, from the summaries of the last second or more, what it
// allocates a frame and how often it collects.
func (p *overviewPane) memoryLines(gc *protocol.GCStats) []string {
	if gc == nil {
		return nil
	}
	out := []string{"", p.styles.Header.Render("Memory"),
		fmt.Sprintf("  heap %s (next GC at %s), %d GCs, %s paused in all", protocol.ByteSize(int(gc.Heap)), protocol.ByteSize(int(gc.Goal)),
			gc.Cycles, client.Duration(gc.PauseNs))}
	if n := min(len(p.heaps), max(p.width-60, 8)); n >= 2 { // the line fits the pane
		lo, hi := slices.Min(p.heaps[len(p.heaps)-n:]), slices.Max(p.heaps[len(p.heaps)-n:])
		out = append(out, fmt.Sprintf("  heap over the last %d summaries %s (%s-%s)", n, trendline(p.heaps, n), protocol.ByteSize(int(lo)), protocol.ByteSize(int(hi))))
	}
	b, now := p.gcBefore, p.gc
	if b == nil || now == nil || p.gcTick <= p.beforeTick || !p.gcAt.After(p.beforeAt) {
		return out
	}
	frames := float64(p.gcTick - p.beforeTick)
	secs := p.gcAt.Sub(p.beforeAt).Seconds()
	return append(out, fmt.Sprintf("  allocating %s, %.0f objects a frame; %.1f GCs a second",
		protocol.ByteSize(int(float64(now.AllocBytes-b.AllocBytes)/frames)), float64(now.AllocObjects-b.AllocObjects)/frames, float64(now.Cycles-b.Cycles)/secs))
}

// storedAfterLines points at the handles of the list whose holders were
// written at or after their entities' despawn: the write that stored a
// dead handle is the suspect, not the despawn.
func storedAfterLines(list []protocol.Dangling) []string {
	n, newest := 0, -1
	for i, d := range list {
		if d.StoredAfter() {
			if n++; newest < 0 {
				newest = i
			}
		}
	}
	if n == 0 {
		return nil
	}
	d := list[newest]
	return []string{fmt.Sprintf("  %d of those listed stored after their entity's despawn; the newest by %s at tick %d (%s's %s); w: dangling stored stops at the next",
		n, d.Stored.By, d.Stored.Tick, d.Holder, d.Path)}
}

// trendLines draw the last frames' work and entities as sparklines, as
// wide as the pane allows: the work from zero to its greatest (a spike
// stands out), the entities from their least to their greatest (how the
// count moves).
func (p *overviewPane) trendLines(frames []protocol.FrameStat) []string {
	n := min(len(frames), max((p.width-64)/2, 8)) // the line fits the pane
	if n < 2 {
		return nil
	}
	frames = frames[len(frames)-n:]
	work, ents := make([]int64, n), make([]int64, n)
	var most int64
	lo, hi := frames[0].Entities, frames[0].Entities
	for i, f := range frames {
		work[i], ents[i] = f.Work, int64(f.Entities)
		most = max(most, f.Work)
		lo, hi = min(lo, f.Entities), max(hi, f.Entities)
	}
	return []string{fmt.Sprintf("  last %d frames: work %s (to %s)  entities %s (%d-%d)",
		n, sparkline(work, n), client.Duration(most), trendline(ents, n), lo, hi)}
}
