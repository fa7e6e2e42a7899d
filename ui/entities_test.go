package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestEntitiesPane(t *testing.T) {
	c, src, nav := fixture()
	p := &entitiesPane{common: c}
	p.SetSize(100, 20)
	if s := src.subs[len(src.subs)-1]; s.Limit != 17 || s.What != protocol.SubPage {
		t.Fatalf("the window subscribed %+v, want 17 rows", s)
	}
	mustContain(t, p.View(), "all entities", "waiting for the agent's first answer")
	row := func(i uint32, x float64) protocol.Row {
		return protocol.Row{Entity: protocol.MakeEntityID(i, 1), Values: []protocol.Value{protocol.MapValue(
			protocol.Field{Name: "X", Value: protocol.FloatValue(x)}, protocol.Field{Name: "Y", Value: protocol.FloatValue(0)})}}
	}
	page := func(rows ...protocol.Row) pageMsg {
		return pageMsg{&protocol.Page{Sub: p.sub, Total: len(rows), Columns: []uint16{1}, Rows: rows}}
	}
	p.Update(page(row(1, 1), row(2, 2), row(3, 3)))
	mustContain(t, p.View(), "3 matches", "Position.X", "2v1")
	pressPane(p, "j", "enter")
	if len(nav.opened) != 1 || nav.opened[0] != protocol.MakeEntityID(2, 1) {
		t.Fatalf("enter opened %v", nav.opened)
	}
	// The cursor's entity leaves the window: the pane asks what became of
	// it and says so.
	p.Update(page(row(1, 1), row(3, 3)))
	get, ok := src.reqs[len(src.reqs)-1].(*protocol.GetEntity)
	if !ok || get.Entity != protocol.MakeEntityID(2, 1) {
		t.Fatalf("no question on the lost entity: %+v", src.reqs)
	}
	mustContain(t, p.View(), "2v1 left the window")
	p.Update(replyMsg{r: &protocol.Reply{ID: get.ID, Code: protocol.ErrStale, Message: "stale"}})
	mustContain(t, p.View(), "2v1 was despawned; the cursor is on 3v1 now")
	pressPane(p, "k") // moving on forgets it
	if p.lost != 0 {
		t.Fatal("the note outlived a move")
	}
	// A new filter starts at the top of its list: the old cursor's entity
	// is not reported as lost from it.
	asked := len(src.reqs)
	p.show("Position.X>2", 0)
	p.Update(page(row(3, 3), row(4, 4)))
	if len(src.reqs) != asked || p.lost != 0 || strings.Contains(strings.Join(p.View(), "\n"), "left the window") {
		t.Fatalf("a new filter asked about the old cursor's entity: %v\n%s", src.reqs[asked:], p.View())
	}
	if p.cursor != 0 || p.selected != protocol.MakeEntityID(3, 1) {
		t.Fatalf("a new filter's cursor on row %d, entity %v", p.cursor, p.selected)
	}
	// A refused query: the error in place, 0 matches, never the old rows.
	p.show("Health.HP<10", 0)
	p.Update(replyMsg{r: &protocol.Reply{ID: p.sub, Code: protocol.ErrBadQuery, Message: "unknown component Health"}})
	mustContain(t, p.View(), "0 matches: the agent refused the query", "unknown component Health")
	// esc from an archetype's entities goes back to the archetypes.
	p.show("", 2)
	pressPane(p, "esc")
	if len(nav.shown) != 1 || nav.shown[0] != viewArchetypes || p.arch != 0 {
		t.Fatalf("esc from an archetype went to %v", nav.shown)
	}
}

// TestEntitiesKeysTypedAheadOfThePage: keys pressed while a new filter's
// first page is on its way act on it when it comes, in order; a sort among
// them keeps the rest for the sorted page.
func TestEntitiesKeysTypedAheadOfThePage(t *testing.T) {
	c, src, _ := fixture()
	p := &entitiesPane{common: c}
	p.SetSize(100, 20)
	row := func(i uint32, x float64) protocol.Row {
		return protocol.Row{Entity: protocol.MakeEntityID(i, 1), Values: []protocol.Value{protocol.MapValue(
			protocol.Field{Name: "X", Value: protocol.FloatValue(x)}, protocol.Field{Name: "Y", Value: protocol.FloatValue(0)})}}
	}
	page := func(rows ...protocol.Row) pageMsg {
		return pageMsg{&protocol.Page{Sub: p.sub, Total: len(rows), Columns: []uint16{1}, Rows: rows}}
	}
	p.show("Position", 0)
	pressPane(p, "l", "s", "j", "j") // typed at once, before any page
	if src.subs[len(src.subs)-1].Sort != "" {
		t.Fatal("a sort was asked for before there were columns to sort by")
	}
	p.Update(page(row(1, 1), row(2, 2), row(3, 3), row(4, 4)))
	if s := src.subs[len(src.subs)-1]; s.Sort != "Position.Y" || !p.waiting() {
		t.Fatalf("after the page, the typed l s asked %+v (waiting %v)", s, p.waiting())
	}
	// The sorted page keeps the cursor on its entity (1v1), then j j.
	p.Update(page(row(1, 1), row(3, 3), row(4, 4), row(2, 2)))
	if p.cursor != 2 || p.selected != protocol.MakeEntityID(4, 1) {
		t.Fatalf("the typed j j left the cursor on row %d (%v), want row 2 (4v1)", p.cursor, p.selected)
	}
	// esc is never held: it goes back at once.
	p.show("Position.X>1", 0)
	pressPane(p, "j", "esc")
	if p.query != "" || len(p.typeAhead) != 0 {
		t.Fatalf("esc while waiting: query %q, keys held %d", p.query, len(p.typeAhead))
	}
}

// TestTypedAheadKeysDieWithTheirList: keys held for a page on its way are
// dropped when the user moves to another view before it comes.
func TestTypedAheadKeysDieWithTheirList(t *testing.T) {
	src := &fakeSource{}
	m := fixtureModel(src)
	m.Update(keyMsg("3"))
	m.entities.show("Position", 0)
	m.Update(keyMsg("j"))
	m.Update(keyMsg("enter"))
	if len(m.entities.typeAhead) != 2 {
		t.Fatalf("%d keys held while the page is on its way, want 2", len(m.entities.typeAhead))
	}
	m.Update(keyMsg("2"))
	if len(m.entities.typeAhead) != 0 {
		t.Fatal("keys held for the entities list outlived a move to another view")
	}
}

// A page shorter than the window while more entities match is an answer to
// an older window (a resize lost on the way): the pane asks again, once,
// and not again within a second.
func TestEntitiesPaneRefillsAShortWindow(t *testing.T) {
	c, src, _ := fixture()
	p := &entitiesPane{common: c}
	p.SetSize(100, 20)
	asked := len(src.subs)
	one := protocol.Row{Entity: protocol.MakeEntityID(1, 1), Values: []protocol.Value{protocol.IntValue(1)}}
	p.Update(pageMsg{&protocol.Page{Sub: p.sub, Full: true, Total: 9, Columns: []uint16{1}, Rows: []protocol.Row{one}}})
	if len(src.subs) != asked+1 || src.subs[len(src.subs)-1].Limit != 17 {
		t.Fatalf("a 1-row window of 9 matches was not asked for again: %+v", src.subs[asked:])
	}
	p.Update(pageMsg{&protocol.Page{Sub: p.sub, Full: true, Total: 9, Columns: []uint16{1}, Rows: []protocol.Row{one}}})
	if len(src.subs) != asked+1 {
		t.Fatalf("asked again within a second: %+v", src.subs[asked:])
	}
	// All there is: nothing to ask.
	q := &entitiesPane{common: c}
	q.SetSize(100, 20)
	asked = len(src.subs)
	q.Update(pageMsg{&protocol.Page{Sub: q.sub, Full: true, Total: 1, Columns: []uint16{1}, Rows: []protocol.Row{one}}})
	if len(src.subs) != asked {
		t.Fatalf("a whole list was asked for again: %+v", src.subs[asked:])
	}
}

// TestOldQueryFramesNeverShowUnderANewTitle: a frame of the query shown
// before arrives after a new filter was typed: its rows are not shown
// under the new filter's title; the new query's frame is.
func TestOldQueryFramesNeverShowUnderANewTitle(t *testing.T) {
	c, _, _ := fixture()
	p := &entitiesPane{common: c}
	p.SetSize(100, 20)
	old := p.sub
	p.show("Position.X>100", 0)
	if p.sub == old {
		t.Fatalf("a new filter kept the subscription %d", old)
	}
	stale := protocol.Row{Entity: protocol.MakeEntityID(7, 1), Values: []protocol.Value{protocol.IntValue(1)}}
	p.Update(pageMsg{&protocol.Page{Sub: old, Full: true, Total: 1, Columns: []uint16{1}, Rows: []protocol.Row{stale}}})
	if view := strings.Join(p.View(), "\n"); strings.Contains(view, "7v1") || strings.Contains(view, "1 match") {
		t.Fatalf("the old query's row shows under the new filter:\n%s", view)
	}
	fresh := protocol.Row{Entity: protocol.MakeEntityID(9, 1), Values: []protocol.Value{protocol.IntValue(2)}}
	p.Update(pageMsg{&protocol.Page{Sub: p.sub, Full: true, Total: 1, Columns: []uint16{1}, Rows: []protocol.Row{fresh}}})
	mustContain(t, p.View(), "Position.X>100", "9v1")
}

// TestEntitiesTakeNoPagesWhileAway: the list's pages stop while another
// view is on screen (each would cost a decoding and a redraw for nobody)
// and come again on return, the last page shown meanwhile.
func TestEntitiesTakeNoPagesWhileAway(t *testing.T) {
	h := newHarness(t, 120, 30)
	p := h.m.entities
	h.summaries(10)
	if p.page != nil {
		t.Fatal("a page came before the entities were ever on screen")
	}
	h.keys("3")
	h.until("a first page", func() bool { return p.page != nil })
	first := p.page
	h.until("a second page", func() bool { return p.page != first })
	h.keys("1")
	h.summaries(3) // a page on its way as the view changed may still come
	away := p.page
	h.summaries(15)
	if p.page != away {
		t.Fatal("pages kept coming while another view was on screen")
	}
	h.keys("3")
	if !strings.Contains(h.m.View(), "Entities") || p.page != away {
		t.Fatal("the last page is not shown on return")
	}
	h.until("a page on return", func() bool { return p.page != away })
}
