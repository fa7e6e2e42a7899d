package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestDanglingPaneOpensWhereTheHandleIs: the pane lists the summary's
// dangling handles; enter on one in a component opens its holder, on one
// in a resource opens the Resources view at its place, the cursor on it,
// and esc climbs from there; with none, it says so, and with the search
// off, that.
func TestDanglingPaneOpensWhereTheHandleIs(t *testing.T) {
	c, src, nav := fixture()
	holder, gone := protocol.MakeEntityID(4, 1), protocol.MakeEntityID(9, 2)
	c.summary.Dangling = &protocol.DanglingAudit{N: 2, List: []protocol.Dangling{
		{Holder: holder, Component: "Target", Path: "Target.Who", Handle: gone, Since: 812, By: "hunting"},
		{Resource: "Nest", Path: "Nest.Cells[40]", Handle: gone, Since: 812, By: "hunting"},
	}}
	p := sized(&danglingPane{common: c}, 100, 20)
	mustContain(t, p.View(), "2 dangling handles", "4v1        Target.Who", "9v2", "812", "by hunting", "resource   Nest.Cells[40]")
	pressPane(p, "enter")
	if len(nav.followed) != 1 || nav.followed[0] != holder {
		t.Fatalf("enter on a component's handle followed %v", nav.followed)
	}
	pressPane(p, "j", "enter")
	if len(nav.browsed) != 1 || nav.browsed[0] != "Nest Cells[40]" {
		t.Fatalf("enter on a resource's handle browsed %v", nav.browsed)
	}

	r := sized(&resourcesPane{common: c}, 80, 20)
	r.browse("Nest", "Cells[40]")
	sub := src.subs[len(src.subs)-1]
	if sub.Resource != "Nest" || sub.Path != "Cells" || sub.Offset > 40 || sub.Offset+sub.Limit <= 40 || r.walk.pos != 40 {
		t.Fatalf("browsing Nest.Cells[40] subscribed %+v, cursor %d", sub, r.walk.pos)
	}
	pressPane(r, "esc")
	if sub := src.subs[len(src.subs)-1]; sub.Path != "" || r.walk == nil {
		t.Fatalf("esc from Cells subscribed %+v", sub)
	}

	c.summary.Dangling = &protocol.DanglingAudit{}
	mustContain(t, p.View(), "No dangling handles")
	c.summary.Dangling = nil
	if !strings.Contains(screenText(p.View()), "does not look") {
		t.Fatalf("with the search off: %s", screenText(p.View()))
	}
}

// TestDanglingRowSaysWhoStoredIt: a wide Dangling view says who last wrote
// the holder's component, and that it was after the despawn.
func TestDanglingRowSaysWhoStoredIt(t *testing.T) {
	d := protocol.Dangling{Holder: protocol.MakeEntityID(4, 1), Component: "Hunts", Path: "Hunts.Prey", Handle: protocol.MakeEntityID(9, 1), Since: 30, By: "harvest",
		Stored: &protocol.Provenance{Tick: 31, By: "stalker"}}
	if got := storedBy(d); got != "held by stalker at 31, after the despawn" {
		t.Fatalf("stored: %q", got)
	}
	d.Stored.Seen, d.Stored.Tick = true, 12
	if got := storedBy(d); got != "stalker at 12" {
		t.Fatalf("stored before the despawn: %q", got)
	}
}

// TestDanglingPaneListsEveryOne: past the summary's newest, a asks the
// agent for every handle a page at a time, oldest first; ] asks for the
// next page from where this one ends, [ for the one before; a again goes
// back to the newest.
func TestDanglingPaneListsEveryOne(t *testing.T) {
	c, src, _ := fixture()
	c.summary.Dangling = &protocol.DanglingAudit{N: 350, Between: 250, List: []protocol.Dangling{{Holder: protocol.MakeEntityID(4, 1), Component: "Target", Path: "Target.Who", Handle: protocol.MakeEntityID(9, 2), Since: 812}}}
	p := sized(&danglingPane{common: c}, 100, 20)
	mustContain(t, p.View(), "a: all, oldest first")
	pressPane(p, "a")
	ask, ok := src.reqs[len(src.reqs)-1].(*protocol.GetDangling)
	if !ok || ask.Offset != 0 || ask.Limit != danglingPageSize {
		t.Fatalf("a asked %+v", src.reqs[len(src.reqs)-1])
	}
	var page []protocol.Dangling
	for i := range danglingPageSize {
		page = append(page, protocol.Dangling{Holder: protocol.MakeEntityID(uint32(100+i), 1), Component: "Target", Path: "Target.Who", Handle: protocol.MakeEntityID(9, 2), Since: uint64(i)})
	}
	p.Update(danglingPageMsg{&protocol.DanglingPage{Sub: ask.ID, Total: 350, Offset: 0, List: page}})
	mustContain(t, p.View(), "every dangling handle, oldest first, grouped by where: 1-200 of 350 (] next page)", "100v1")
	pressPane(p, "]")
	if next := src.reqs[len(src.reqs)-1].(*protocol.GetDangling); next.Offset != 200 {
		t.Fatalf("] asked from %d, want 200", next.Offset)
	}
	pressPane(p, "a")
	mustContain(t, p.View(), "350 dangling handles")
}

// TestOverviewPointsAtTheStorer: the Overview counts the listed handles
// stored after their entity's despawn and names the newest one's writer;
// none, no line.
func TestOverviewPointsAtTheStorer(t *testing.T) {
	before := protocol.Dangling{Holder: protocol.MakeEntityID(2, 1), Path: "Hunts.Prey", Since: 30, By: "harvest", Stored: &protocol.Provenance{Tick: 12, By: "spawner"}}
	after := protocol.Dangling{Holder: protocol.MakeEntityID(4, 1), Path: "Hunts.Prey", Since: 30, By: "harvest", Stored: &protocol.Provenance{Tick: 36, By: "stalker"}}
	if l := storedAfterLines([]protocol.Dangling{before}); l != nil {
		t.Fatalf("a handle stored before the despawn: %q", l)
	}
	l := storedAfterLines([]protocol.Dangling{before, after, after})
	if len(l) != 1 || !strings.Contains(l[0], "2 of those listed stored after") || !strings.Contains(l[0], "by stalker at tick 36 (4v1's Hunts.Prey)") {
		t.Fatalf("%q", l)
	}
}
