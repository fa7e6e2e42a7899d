package ui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// viewLines renders the current view's body.
func (m *model) viewLines() []string {
	if m.summary == nil {
		return []string{"waiting for the first frame from " + m.addr + "…"}
	}
	switch m.view {
	case viewOverview:
		return m.overview()
	case viewArchetypes:
		return m.archetypes()
	case viewEntities:
		return m.entities()
	case viewSystems:
		return m.systems()
	case viewEvents:
		return m.eventQueues()
	case viewJournal:
		return m.journalLines()
	default:
		return m.resources()
	}
}

func (m *model) compName(id uint16) string {
	for _, c := range m.summary.Components {
		if c.ID == id {
			return c.Short
		}
	}
	return fmt.Sprintf("#%d", id)
}

func (m *model) overview() []string {
	s := m.summary
	bytes := 0
	for _, a := range s.Archetypes {
		bytes += a.Bytes
	}
	state := "running"
	if s.Paused {
		state = "paused"
	}
	lines := []string{
		m.styles.Header.Render("World"),
		fmt.Sprintf("  tick %-12d frame time %-10s %s", s.Tick, client.Duration(s.FrameNs), state),
		fmt.Sprintf("  entities %-10d archetypes %-6d components %-4d memory %s", s.Entities, len(s.Archetypes), len(s.Components), client.Size(bytes)),
		"",
		m.styles.Header.Render("Generations"),
		fmt.Sprintf("  alive %-10d free slots %-10d retired slots %-8d highest index %d", s.Stats.Alive, s.Stats.Free, s.Stats.Retired, s.Stats.Slots-1),
	}
	if len(s.Recycled) > 0 {
		var parts []string
		for _, r := range s.Recycled {
			parts = append(parts, fmt.Sprintf("%d (gen %d)", r.Index, r.Generation))
		}
		lines = append(lines, "  most recycled: "+strings.Join(parts, ", "))
	}
	a := s.Agent
	lines = append(lines, "",
		m.styles.Header.Render("Agent"),
		fmt.Sprintf("  clients %-8d sent %-12s frames sent %d", a.Clients, client.Size(int(a.BytesSent)), a.FramesSent),
		fmt.Sprintf("  coalesced %-6d dropped %-10d sync %s a frame", a.Coalesced, a.Dropped, client.Duration(a.SyncNs)))
	if a.Recording != "" {
		lines = append(lines, "  recording to "+a.Recording)
	}
	return lines
}

// window returns the slice of n lines around cursor that fits h rows.
func window(cursor, n, h int) (lo, hi int) {
	h = max(h, 1) // a terminal too short still shows the cursor's row
	cursor = max(0, min(cursor, n-1))
	lo = max(0, cursor-h+1)
	hi = min(n, lo+h)
	return min(lo, hi), hi
}

func (m *model) list(header string, rows []string, cursor int) []string {
	out := []string{m.styles.Header.Render(header)}
	lo, hi := window(cursor, len(rows), m.bodyHeight()-1)
	for i := lo; i < hi; i++ {
		if i == cursor {
			out = append(out, m.styles.Selected.Render(fit(rows[i], m.width)))
		} else {
			out = append(out, rows[i])
		}
	}
	return out
}

func (m *model) archetypes() []string {
	var rows []string
	hidden := 0
	for _, a := range m.visibleArchetypes() {
		names := make([]string, len(a.Components))
		for i, c := range a.Components {
			names[i] = m.compName(c)
		}
		set := strings.Join(names, " ")
		if set == "" {
			set = "(no components)"
		}
		rows = append(rows, fmt.Sprintf("%5d %9d %10s  %s", a.ID, a.Len, client.Size(a.Bytes), set))
	}
	hidden = len(m.summary.Archetypes) - len(rows)
	title := "components (enter lists them)"
	if hidden > 0 {
		title += fmt.Sprintf("; %d empty hidden (z)", hidden)
	}
	return m.list(fmt.Sprintf("%5s %9s %10s  %s", "id", "entities", "memory", title), rows, m.cursor[viewArchetypes])
}

// visibleArchetypes are the archetypes the view lists: the empty ones only
// when asked (z).
func (m *model) visibleArchetypes() []protocol.Archetype {
	if m.showEmpty || m.summary == nil {
		if m.summary == nil {
			return nil
		}
		return m.summary.Archetypes
	}
	var out []protocol.Archetype
	for _, a := range m.summary.Archetypes {
		if a.Len > 0 {
			out = append(out, a)
		}
	}
	return out
}

func (m *model) entities() []string {
	title := "all entities"
	switch {
	case m.arch > 0:
		title = fmt.Sprintf("archetype %d", m.arch-1)
	case m.query != "":
		title = m.query
	}
	if m.pageErr != "" {
		return []string{m.styles.Header.Render(title + " — 0 matches: the agent refused the query"), m.styles.Error.Render(m.pageErr),
			m.styles.Faint.Render("/ edits the query, esc clears it")}
	}
	if m.page == nil {
		return []string{m.styles.Header.Render(title), m.styles.Faint.Render("waiting for the agent's first answer…")}
	}
	return m.tableLines(m.page, title)
}

func (m *model) systems() []string {
	if len(m.summary.Systems) == 0 {
		return []string{"no systems reported (give the agent the schedule: Options.Schedule)"}
	}
	// Stages in schedule order; in each, the costliest first.
	var stages []string
	byStage := map[string][]protocol.System{}
	for _, s := range m.summary.Systems {
		if _, ok := byStage[s.Stage]; !ok {
			stages = append(stages, s.Stage)
		}
		byStage[s.Stage] = append(byStage[s.Stage], s)
	}
	narrow := m.width < 110 // fewer columns, so the access stays in view
	head := fmt.Sprintf("%-16s %9s %9s %9s %8s  %-24s  %s", "system", "last", "mean", "max (120)", "runs", "recent", "access")
	if narrow {
		head = fmt.Sprintf("%-14s %9s %9s  %-8s  %s", "system", "last", "mean", "recent", "access")
	}
	var rows []string
	for _, st := range stages {
		sys := byStage[st]
		sort.SliceStable(sys, func(i, j int) bool { return sys[i].Mean > sys[j].Mean })
		var sum int64
		for _, s := range sys {
			sum += s.Mean
		}
		rows = append(rows, m.styles.Title.Render(fmt.Sprintf("stage %s: %s a frame of a %s budget (60 Hz)", st, client.Duration(sum), client.Duration(frameBudget))))
		for _, s := range sys {
			if narrow {
				rows = append(rows, fmt.Sprintf("%-14s %9s %9s  %s  %s", s.Name, client.Duration(s.Last), client.Duration(s.Mean), sparkline(s.Recent, 8), access(s)))
			} else {
				rows = append(rows, fmt.Sprintf("%-16s %9s %9s %9s %8d  %s  %s", s.Name, client.Duration(s.Last), client.Duration(s.Mean), client.Duration(s.Max), s.Count,
					sparkline(s.Recent, 24), access(s)))
			}
		}
	}
	return m.list(head, rows, m.cursor[viewSystems])
}

// frameBudget is a frame at 60 Hz, what the systems view measures against.
const frameBudget = int64(1_000_000_000 / 60)

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

// sparkline draws the last n samples as block characters.
func sparkline(samples []int64, n int) string {
	if len(samples) > n {
		samples = samples[len(samples)-n:]
	}
	var hi int64 = 1
	for _, s := range samples {
		hi = max(hi, s)
	}
	blocks := []rune("▁▂▃▄▅▆▇█")
	var b strings.Builder
	for _, s := range samples {
		b.WriteRune(blocks[int(s*int64(len(blocks)-1)/hi)])
	}
	return b.String() + spaces(n-len(samples))
}

func (m *model) eventQueues() []string {
	if m.events == nil || len(m.events.Queues) == 0 {
		return []string{"no event queues"}
	}
	// The agent samples after the frame's Tick: what the game sent during
	// the last frame is "last frame"; "queued now" is what was sent since.
	out := []string{m.styles.Header.Render(fmt.Sprintf("%-20s %10s %10s %10s  %s", "queue", "last frame", "queued now", "total", "recent"))}
	for _, q := range m.events.Queues {
		out = append(out, fmt.Sprintf("%-20s %10d %10d %10d", q.Name, q.Previous, q.Current, q.Total))
		for _, e := range q.Recent {
			out = append(out, "    "+shortFields(e, q.Fields))
		}
	}
	return out
}

func (m *model) journalLines() []string {
	if len(m.journalShown()) == 0 {
		if m.journalText != "" {
			return []string{"no journal entries for " + m.journalText + " yet (/ changes the filter)"}
		}
		return []string{"no structural changes yet"}
	}
	var rows []string
	for _, e := range m.journalShown() {
		comp := ""
		if e.Component >= 0 {
			comp = m.compName(uint16(e.Component))
		}
		for k, c := range e.Components { // a spawn, with what it was given
			if k > 0 {
				comp += " "
			}
			comp += m.compName(uint16(c))
		}
		if len(comp) > 16 {
			comp = comp[:15] + "…"
		}
		rows = append(rows, fmt.Sprintf("%8d %8d %-8s %-12s %-16s %s", e.Seq, e.Frame, e.Op, e.Entity, comp, e.System))
	}
	head := fmt.Sprintf("%8s %8s %-8s %-12s %-16s %s", "seq", "frame", "op", "entity", "component", "by")
	if m.journalText != "" {
		head += "   (filter: " + m.journalText + ")"
	}
	return m.list(head, rows, m.cursor[viewJournal])
}

func (m *model) resources() []string {
	var rows []string
	for _, r := range m.summary.Resources {
		rows = append(rows, fmt.Sprintf("%-20s %s", r.Name, shortFields(r.Value, r.Fields)))
	}
	if len(rows) == 0 {
		return []string{"no resources"}
	}
	return m.list(fmt.Sprintf("%-20s %s", "resource", "value"), rows, m.cursor[viewResources])
}

// schemaOf returns a component's field schemas, by id.
func (m *model) schemaOf(id uint16) []protocol.FieldSchema {
	if m.summary == nil {
		return nil
	}
	for _, c := range m.summary.Components {
		if c.ID == id {
			return c.Fields
		}
	}
	return nil
}

// field finds a field's schema by name.
func field(fs []protocol.FieldSchema, name string) *protocol.FieldSchema {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i]
		}
	}
	return nil
}

// shortAs prints a value knowing its schema: entity fields as 42v3.
func shortAs(v protocol.Value, f *protocol.FieldSchema) string {
	if f == nil {
		return short(v)
	}
	switch {
	case f.Kind == "entity" && (v.Kind() == protocol.KindInt || v.Kind() == protocol.KindUint):
		if e := protocol.EntityID(uint64(v.Int()) | v.Uint()); e == 0 {
			return "none"
		} else {
			return e.String()
		}
	case v.Kind() == protocol.KindMap && len(f.Fields) > 0:
		return shortFields(v, f.Fields)
	case v.Kind() == protocol.KindList && f.Elem != nil:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = shortAs(v.Index(i), f.Elem)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return short(v)
}

// shortFields prints a struct value field by field with its schema.
func shortFields(v protocol.Value, fs []protocol.FieldSchema) string {
	if v.Kind() != protocol.KindMap {
		return short(v)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := range v.Len() {
		if i > 0 {
			b.WriteByte(' ')
		}
		k, e := v.Entry(i)
		b.WriteString(k + ":" + shortAs(e, field(fs, k)))
	}
	b.WriteByte('}')
	return b.String()
}

// short prints a value for a list: floats to 6 significant digits.
func short(v protocol.Value) string {
	switch v.Kind() {
	case protocol.KindFloat:
		return strconv.FormatFloat(v.Float(), 'g', 6, 64)
	case protocol.KindMap:
		return shortFields(v, nil)
	case protocol.KindList:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = short(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return v.String()
}
