package ui

import (
	"fmt"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// The dangling pane: handles stored in components and resources that name
// no live entity, as the agent's reading of them finds them (the
// summary's dangling list), newest first, each with where it is, since
// which tick and who despawned its entity. enter opens the entity that
// holds one, or the resource at the place, in the Resources view.

type danglingPane struct {
	*common
	box
	list
}

func (p *danglingPane) Title() string                     { return "Dangling" }
func (p *danglingPane) SetSize(width, height int) tea.Cmd { p.box = box{width, height}; return nil }

func (p *danglingPane) KeyMap() []key.Binding {
	k := p.keys
	return []key.Binding{k.Up, k.Down, k.Enter, k.Watch, k.Views, k.Pause, k.Help, k.Quit}
}

// entries is the list, as last summarised.
func (p *danglingPane) entries() []protocol.Dangling {
	if p.summary == nil || p.summary.Dangling == nil {
		return nil
	}
	return p.summary.Dangling.List
}

func (p *danglingPane) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	es := p.entries()
	switch {
	case key.Matches(km, p.keys.Enter):
		if p.cursor >= len(es) {
			return nil
		}
		d := es[p.cursor]
		if d.Holder != 0 {
			return p.nav.followEntity(d.Holder)
		}
		_, path := protocol.SplitResourcePath(d.Path)
		return p.nav.browseResource(d.Resource, path)
	}
	p.move(p.keys, km, len(es), p.height-3)
	return nil
}

func (p *danglingPane) View() []string {
	s := p.summary
	if s == nil || s.Dangling == nil {
		return p.wrap("The agent does not look for dangling handles (its Options.DanglingBudget is negative).")
	}
	dg := s.Dangling
	read := fmt.Sprintf("%d handles read each pass, %d passes", s.Agent.HandlesRead, s.Agent.HandlePasses)
	if ms := s.Agent.HandlePassMs; ms > 0 {
		read += ", a pass every " + passEvery(ms)
	}
	if n := s.Agent.HandlesCut; n > 0 {
		read += fmt.Sprintf("; %d component values too big to read whole, read to 262,144 handles", n)
	}
	if dg.N == 0 {
		return append([]string{p.styles.Header.Render("No dangling handles")},
			p.wrap("  Every handle stored in a component or a resource names a live entity ("+read+").",
				"  w sets a watchpoint that stops the game on the frame one appears.")...)
	}
	title := danglingCount(dg.N) + ": stored in components and resources, naming despawned entities"
	switch {
	case dg.Between > 0:
		title += fmt.Sprintf(" (the newest %d, then the first %d found; %d between not listed)", len(dg.List)-len(dg.List)/2, len(dg.List)/2, dg.Between)
	case dg.N > len(dg.List):
		title += fmt.Sprintf(" (%d listed)", len(dg.List))
	}
	rows := make([]string, len(dg.List))
	wide := p.width >= 120 // room for who stored each
	for i, d := range dg.List {
		in := "resource"
		if d.Holder != 0 {
			in = d.Holder.String()
		}
		by := ""
		if d.By != "" {
			by = "by " + d.By
		}
		path := d.Path
		if d.Key {
			path += " (key)"
		}
		rows[i] = fmt.Sprintf("%-10s %-30s %-10s %-10s %s", in, path, d.Handle, strconv.FormatUint(d.Since, 10), by)
		if wide {
			rows[i] = fmt.Sprintf("%-10s %-30s %-10s %-10s %-18s %s", in, path, d.Handle, strconv.FormatUint(d.Since, 10), by, storedBy(d))
		}
	}
	p.clamp(len(rows))
	header := fmt.Sprintf("%-10s %-30s %-10s %-10s %s", "in", "where", "handle", "since", "despawned")
	if wide {
		header = fmt.Sprintf("%-10s %-30s %-10s %-10s %-18s %s", "in", "where", "handle", "since", "despawned", "stored (last write of the holder)")
	}
	out := append([]string{fit(title, p.width)}, p.draw(p.styles, box{p.width, p.height - 2}, header, rows)...)
	return append(out, p.styles.Faint.Render(fit("  "+read+"; enter opens the holder", p.width)))
}

// storedBy says who last wrote the holder's component, and when: "by
// stalker at 812, after" when at or after the despawn; "?" for a
// resource (a resource watchpoint names its writer).
func storedBy(d protocol.Dangling) string {
	st := d.Stored
	if st == nil {
		if d.Resource != "" {
			return "? (watch it: resource " + d.Path + ")"
		}
		return ""
	}
	s := fmt.Sprintf("%s at %d", st.By, st.Tick)
	if !st.Seen {
		s = "held by " + s
	}
	if d.StoredAfter() {
		s += ", after the despawn"
	}
	return s
}

// danglingCount is "1 dangling handle", "3 dangling handles".
func danglingCount(n int) string {
	if n == 1 {
		return "1 dangling handle"
	}
	return fmt.Sprintf("%d dangling handles", n)
}

// passEvery says how long a pass of the dangling scan takes: "0.4 ms",
// "12 s".
func passEvery(ms float64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%.1f ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.0f min", ms/60_000)
}
