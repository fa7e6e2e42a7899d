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
	// all, when set, lists every handle the agent lists, a page at a
	// time, oldest first and grouped by where they are (a, then [ and ]),
	// in place of the summary's newest.
	all *danglingPages
}

// danglingPages is the pages of every dangling handle: the one shown,
// the request in flight, and why the last was refused.
type danglingPages struct {
	offset int
	page   *protocol.DanglingPage
	asked  uint32
}

// danglingPageMsg is a page of every dangling handle, as asked.
type danglingPageMsg struct{ p *protocol.DanglingPage }

// danglingPageSize is the handles a page asks for.
const danglingPageSize = 200

// askPage asks for the page of every handle from offset.
func (p *danglingPane) askPage(offset int) tea.Cmd {
	p.all.offset = max(offset, 0)
	return p.src.request("", func(id uint32) protocol.Message {
		p.all.asked = id
		return &protocol.GetDangling{ID: id, Offset: p.all.offset, Limit: danglingPageSize}
	})
}

func (p *danglingPane) Title() string { return "Dangling" }

func (p *danglingPane) KeyMap() []key.Binding {
	k := p.keys
	return []key.Binding{k.Up, k.Down, k.Enter, k.Watch, k.Views, k.Pause, k.Help, k.Quit}
}

// entries is the list: the page of every handle shown, or the summary's.
func (p *danglingPane) entries() []protocol.Dangling {
	if p.all != nil {
		if p.all.page == nil {
			return nil
		}
		return p.all.page.List
	}
	if p.summary == nil || p.summary.Dangling == nil {
		return nil
	}
	return p.summary.Dangling.List
}

func (p *danglingPane) Update(msg tea.Msg) tea.Cmd {
	if pm, ok := msg.(danglingPageMsg); ok {
		if p.all != nil && pm.p.Sub == p.all.asked {
			p.all.page, p.cursor = pm.p, 0
		}
		return nil
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	es := p.entries()
	switch {
	case km.String() == "a":
		if p.play != nil {
			p.nav.flash("a recording keeps its summaries' list of dangling handles, the newest; every one is paged live", true)
			return nil
		}
		if p.all != nil {
			p.all = nil
			return nil
		}
		p.all = &danglingPages{}
		return p.askPage(0)
	case p.all != nil && km.String() == "]":
		if pg := p.all.page; pg != nil && pg.Offset+len(pg.List) < pg.Total {
			return p.askPage(pg.Offset + len(pg.List))
		}
		return nil
	case p.all != nil && km.String() == "[":
		return p.askPage(p.all.offset - danglingPageSize)
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
	case p.all != nil && p.all.page == nil:
		title = "every dangling handle, oldest first: asking the agent…"
	case p.all != nil:
		pg := p.all.page
		title = fmt.Sprintf("every dangling handle, oldest first, grouped by where: %d-%d of %d", pg.Offset+1, pg.Offset+len(pg.List), pg.Total)
		if pg.Offset+len(pg.List) < pg.Total {
			title += " (] next page"
			if pg.Offset > 0 {
				title += ", [ the one before"
			}
			title += ")"
		} else if pg.Offset > 0 {
			title += " ([ the page before)"
		}
		title += "; a: the newest"
	case dg.Between > 0:
		title += fmt.Sprintf(" (the newest %d, then the first %d found; %d between not listed)", len(dg.List)-len(dg.List)/2, len(dg.List)/2, dg.Between)
	case dg.N > len(dg.List):
		title += fmt.Sprintf(" (%d listed)", len(dg.List))
	}
	list := p.entries()
	rows := make([]string, len(list))
	wide := p.width >= 120 // room for who stored each
	for i, d := range list {
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
	hint := "; enter opens the holder; a: all, oldest first"
	if p.all != nil {
		hint = "; enter opens the holder; a: the newest"
	}
	return append(out, p.styles.Faint.Render(fit("  "+read+hint, p.width)))
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
