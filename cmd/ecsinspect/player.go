package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// source is where the UI gets the world: a live session or a recording.
type source interface {
	subscribe(protocol.Subscribe) tea.Cmd
	unsubscribe(id uint32) tea.Cmd
	request(what string, build func(id uint32) protocol.Message) tea.Cmd
}

// player replays a recording for the UI: the same messages a live agent
// sends, computed from the frames at the current position.
type player struct {
	path  string
	rec   *protocol.Recording
	idx   int
	sum   *protocol.Summary
	snap  *protocol.Snapshot
	snapI int   // the frame snap came from, -1 for none
	fake  bool  // sum was made from a snapshot: archetype ids are table numbers
	snaps []int // frames holding snapshots

	mu   sync.Mutex // subs are read by commands running off the UI goroutine
	subs map[uint32]protocol.Subscribe
}

func openPlayer(path string) (*player, error) {
	rec, err := protocol.OpenRecording(path)
	if err != nil {
		return nil, err
	}
	if len(rec.Frames) == 0 {
		rec.Close()
		return nil, fmt.Errorf("%s holds no frames", path)
	}
	p := &player{path: path, rec: rec, subs: map[uint32]protocol.Subscribe{}}
	for i := range rec.Frames {
		if t, err := rec.Type(i); err == nil && t == protocol.TypeSnapshot {
			p.snaps = append(p.snaps, i)
		}
	}
	if err := p.seek(len(rec.Frames) - 1); err != nil {
		rec.Close()
		return nil, err
	}
	return p, nil
}

func (p *player) close() { p.rec.Close() }

// seek moves to frame i: the summary there (from the last full one before
// it, deltas applied) and the last snapshot at or before it.
func (p *player) seek(i int) error {
	i = max(0, min(i, len(p.rec.Frames)-1))
	start := i
	for ; start > 0; start-- {
		if t, _ := p.rec.Type(start); t == protocol.TypeSummary && p.rec.Frames[start].Keyframe {
			break
		}
	}
	var sum *protocol.Summary
	for k := start; k <= i; k++ {
		if t, _ := p.rec.Type(k); t != protocol.TypeSummary {
			continue
		}
		m, err := p.rec.Message(k)
		if err != nil {
			return err
		}
		if next, err := protocol.ApplySummary(sum, m.(*protocol.Summary)); err == nil {
			sum = next
		}
	}
	var snap *protocol.Snapshot
	snapI := -1
	for k := len(p.snaps) - 1; k >= 0; k-- {
		if p.snaps[k] <= i {
			m, err := p.rec.Message(p.snaps[k])
			if err != nil {
				return err
			}
			snap, snapI = m.(*protocol.Snapshot), p.snaps[k]
			break
		}
	}
	fake := false
	if sum == nil && snap != nil {
		sum, fake = summaryOf(snap), true
	}
	if sum == nil {
		return errors.New("no summary or snapshot at or before that frame")
	}
	p.idx, p.sum, p.snap, p.snapI, p.fake = i, sum, snap, snapI, fake
	return nil
}

// summaryOf makes a summary from a snapshot, for recordings of snapshots alone.
func summaryOf(s *protocol.Snapshot) *protocol.Summary {
	sum := &protocol.Summary{Tick: s.Tick, Full: true, Entities: s.Stats.Alive, Stats: s.Stats, Components: s.Components, Resources: s.Resources}
	for i, t := range s.Tables {
		sum.Archetypes = append(sum.Archetypes, protocol.Archetype{ID: uint32(i), Components: t.Components, Len: len(t.Entities)})
	}
	return sum
}

// keyframe returns the next (dir > 0) or previous keyframe from the position.
func (p *player) keyframe(dir int) int {
	for i := p.idx + dir; i >= 0 && i < len(p.rec.Frames); i += dir {
		if p.rec.Frames[i].Keyframe {
			return i
		}
	}
	return p.idx
}

func (p *player) subscribe(sub protocol.Subscribe) tea.Cmd {
	p.mu.Lock()
	p.subs[sub.ID] = sub
	p.mu.Unlock()
	return p.frameCmd(sub.ID)
}

func (p *player) unsubscribe(id uint32) tea.Cmd {
	p.mu.Lock()
	delete(p.subs, id)
	p.mu.Unlock()
	return nil
}

func (p *player) request(what string, build func(uint32) protocol.Message) tea.Cmd {
	return func() tea.Msg {
		return replyMsg{r: &protocol.Reply{Code: protocol.ErrReadOnly, Message: "a recording cannot be changed: " + what + " is for a live game"}, what: what}
	}
}

// refresh re-sends every subscription's frame, after a seek.
func (p *player) refresh() tea.Cmd {
	var cmds []tea.Cmd
	p.mu.Lock()
	for id := range p.subs {
		cmds = append(cmds, p.frameCmd(id))
	}
	p.mu.Unlock()
	return tea.Batch(cmds...)
}

// frameCmd computes what the agent would have sent for subscription id at
// the position, as the subscription stands when the command runs.
func (p *player) frameCmd(id uint32) tea.Cmd {
	sum, snap := p.sum, p.snap
	return func() tea.Msg {
		p.mu.Lock()
		sub, ok := p.subs[id]
		p.mu.Unlock()
		if !ok {
			return nil
		}
		switch sub.What {
		case protocol.SubSummary:
			s := *sum
			s.Paused = false
			return summaryMsg{&s}
		case protocol.SubPage:
			return pageMsg{snapshotPage(snap, sum, sub)}
		case protocol.SubEntity:
			return detailMsg{snapshotDetail(snap, sub.Entity)}
		case protocol.SubEvents:
			return eventsMsg{&protocol.Events{Tick: sum.Tick, Queues: sum.Events}}
		}
		return nil
	}
}

// rowOf returns an entity's components (name -> value) in a snapshot.
func rowOf(snap *protocol.Snapshot, names map[uint16]string, t *protocol.Table, row int, into map[string]protocol.Value) {
	for c, col := range t.Columns {
		into[names[t.Components[c]]] = col[row]
	}
}

// snapshotPage evaluates a page subscription on a snapshot: components by
// name (with, without, optional) and field comparisons, on the client.
func snapshotPage(snap *protocol.Snapshot, sum *protocol.Summary, sub protocol.Subscribe) *protocol.Page {
	page := &protocol.Page{Sub: sub.ID, Tick: sum.Tick, Full: true, Offset: sub.Offset}
	if snap == nil {
		return page
	}
	names := map[uint16]string{}
	ids := map[string]uint16{}
	for _, c := range snap.Components {
		names[c.ID], ids[c.Short] = c.Short, c.ID
	}
	ex, err := protocol.ParseQuery(sub.Query)
	if err != nil {
		return page
	}
	var cols []string
	seen := map[string]bool{}
	for _, t := range ex.Terms {
		if t.Kind != protocol.TermWithout && t.Kind != protocol.TermChildOf && !seen[t.Component] {
			seen[t.Component] = true
			cols = append(cols, t.Component)
		}
	}
	if len(ex.Terms) == 0 {
		for _, c := range snap.Components {
			cols = append(cols, c.Short)
		}
	}
	for _, c := range cols {
		page.Columns = append(page.Columns, ids[c])
	}
	// Entities may appear in an archetype table and in sparse tables: merge.
	all := map[protocol.EntityID]map[string]protocol.Value{}
	var order []protocol.EntityID
	for ti := range snap.Tables {
		t := &snap.Tables[ti]
		if sub.Archetype > 0 && int64(ti) != sub.Archetype-1 {
			continue
		}
		for row, e := range t.Entities {
			m, ok := all[e]
			if !ok {
				m = map[string]protocol.Value{}
				all[e] = m
				order = append(order, e)
			}
			rowOf(snap, names, t, row, m)
		}
	}
	for _, e := range order {
		comps := all[e]
		if !matches(ex, comps) {
			continue
		}
		if page.Total >= sub.Offset && len(page.Rows) < max(sub.Limit, 1) {
			vals := make([]protocol.Value, len(cols))
			for i, c := range cols {
				vals[i] = comps[c]
			}
			page.Rows = append(page.Rows, protocol.Row{Entity: e, Values: vals})
		}
		page.Total++
	}
	return page
}

// matches evaluates a query on one entity's components.
func matches(ex *protocol.Expr, comps map[string]protocol.Value) bool {
	for _, t := range ex.Terms {
		v, has := comps[t.Component]
		switch t.Kind {
		case protocol.TermWith, protocol.TermChanged, protocol.TermAdded:
			if !has {
				return false
			}
		case protocol.TermWithout:
			if has {
				return false
			}
		case protocol.TermField:
			if !has || !fieldMatches(v, t) {
				return false
			}
		}
	}
	return true
}

func fieldMatches(v protocol.Value, t protocol.Term) bool {
	for _, part := range strings.Split(t.Path, ".") {
		name, _, _ := strings.Cut(part, "[")
		var ok bool
		if v, ok = v.Get(name); !ok {
			return false
		}
	}
	return t.Holds(v)
}

// snapshotDetail finds one entity in a snapshot.
func snapshotDetail(snap *protocol.Snapshot, e protocol.EntityID) *protocol.Detail {
	d := &protocol.Detail{Sub: subDetail, Entity: e}
	if snap == nil {
		d.Reason = "the recording holds no snapshot at or before this tick"
		return d
	}
	d.Tick = snap.Tick
	names := map[uint16]string{}
	for _, c := range snap.Components {
		names[c.ID] = c.Short
	}
	for ti, t := range snap.Tables {
		for row, te := range t.Entities {
			if te != e {
				continue
			}
			if !d.Alive {
				d.Alive, d.Archetype, d.Row = true, uint32(ti), row
			}
			for c, col := range t.Columns {
				d.Components = append(d.Components, protocol.ComponentValue{Component: names[t.Components[c]], Value: col[row]})
			}
		}
	}
	if !d.Alive {
		d.Reason = fmt.Sprintf("entity %s is not in the snapshot of tick %d", e, snap.Tick)
	}
	return d
}
