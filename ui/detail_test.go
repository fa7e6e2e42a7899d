package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestChildListSaysWhatDidNotFit(t *testing.T) {
	kids := make([]protocol.EntityID, 12)
	for i := range kids {
		kids[i] = protocol.MakeEntityID(uint32(100+i), 1)
	}
	if got := handleList("children", kids[:2], 2, 80); got != "children (2): 100v1 101v1" {
		t.Errorf("two children: %q", got)
	}
	got := handleList("children", kids, 12, 40)
	if len(got) > 40 || !strings.HasSuffix(got, "more") || !strings.HasPrefix(got, "children (12): 100v1") {
		t.Errorf("twelve children in 40 cells: %q (%d)", got, len(got))
	}
	// A window of the first two of 12,000: the count and what is left are
	// of all of them.
	if got := handleList("children", kids[:2], 12000, 200); got != "children (12000): 100v1 101v1 … +11998 more" {
		t.Errorf("the first two of 12,000: %q", got)
	}
}

// TestDetailShowsItsHolders: a target's detail names the relations that
// point at it, kind by kind, with how many and the first of them.
func TestDetailShowsItsHolders(t *testing.T) {
	c, _, _ := fixture()
	p := &detailPane{common: c}
	p.SetSize(100, 20)
	hive := protocol.MakeEntityID(7, 1)
	p.open(hive)
	p.Update(detailMsg{&protocol.Detail{Sub: subDetail, Entity: hive, Alive: true, Tick: 40000,
		HeldBy: []protocol.HeldBy{{Kind: "HomeHive", Count: 2000, Holders: []protocol.EntityID{protocol.MakeEntityID(10, 1), protocol.MakeEntityID(11, 1)}}}}})
	mustContain(t, p.View(), "held through HomeHive (2000): 10v1 11v1 … +1998 more")
	// H lists them in the Entities view, by the query for the hive's holders.
	nav := c.nav.(*fakeNav)
	pressPane(p, "H")
	if len(nav.queries) != 1 || nav.queries[0] != "HomeHive(7v1)" {
		t.Fatalf("H asked the Entities view for %q, want [HomeHive(7v1)]", nav.queries)
	}
}

func TestDetailPane(t *testing.T) {
	c, src, nav := fixture()
	p := &detailPane{common: c}
	p.SetSize(100, 20)
	e, target := protocol.MakeEntityID(3, 1), protocol.MakeEntityID(9, 2)
	detail := func(of protocol.EntityID, alive bool) detailMsg {
		return detailMsg{&protocol.Detail{Sub: subDetail, Entity: of, Alive: alive, Tick: 40000, Children: []protocol.EntityID{protocol.MakeEntityID(11, 1)},
			Components: []protocol.ComponentValue{{Component: "Target", Value: protocol.MapValue(protocol.Field{Name: "Who", Value: protocol.UintValue(uint64(target))})}}}}
	}
	p.open(e)
	if s := src.subs[len(src.subs)-1]; s.Entity != e || s.ID != subDetail {
		t.Fatalf("open subscribed %+v", s)
	}
	p.Update(detail(e, true))
	mustContain(t, p.View(), "Entity 3v1", "Who = 9v2", "children (1): 11v1")
	// enter on an entity field follows it; esc comes back.
	pressPane(p, "j", "enter")
	if s := src.subs[len(src.subs)-1]; s.Entity != target || len(p.trail) != 1 {
		t.Fatalf("enter on Who followed %v, trail %v", s.Entity, p.trail)
	}
	p.Update(detail(target, true))
	mustContain(t, p.View(), "Entity 9v2 ← 3v1")
	pressPane(p, "esc")
	if s := src.subs[len(src.subs)-1]; s.Entity != e || len(p.trail) != 0 || !p.shown {
		t.Fatalf("esc went to %v, trail %v", s.Entity, p.trail)
	}
	p.Update(detail(e, true))
	// D on an entity with children: the subtree (y) or the entity alone (o).
	pressPane(p, "D")
	q, ok := nav.pushed[len(nav.pushed)-1].(*confirm)
	if !ok || q.alt == nil || !strings.Contains(q.question, "and its 1 children") {
		t.Fatalf("D asked %+v", nav.pushed)
	}
	if len(src.reqs) != 0 {
		t.Fatal("a request was sent before the question was answered")
	}
	q.Update(keyMsg("o"))
	if d, ok := src.reqs[0].(*protocol.Despawn); !ok || d.Recursive || d.Entity != e {
		t.Fatalf("o sent %+v, want a despawn of 3v1 alone", src.reqs[0])
	}
	// Despawned: greyed as last seen, with who did it from the journal.
	c.journal = []protocol.JournalEntry{{Seq: 1, Frame: 40001, Op: "despawn", Entity: e, System: "hunt"}}
	p.Update(detail(e, false))
	mustContain(t, p.View(), "despawned at tick 40001 by hunt", "as it was last seen, at tick 40000", "Who = 9v2")
	pressPane(p, "esc")
	if p.shown {
		t.Fatal("esc with an empty trail should close the detail")
	}
}

// A component added above the cursor, or another removed, leaves the
// cursor on the field it was on: x then removes what the user looks at.
func TestDetailCursorStaysOnItsFieldWhenComponentsChange(t *testing.T) {
	c, src, _ := fixture()
	p := &detailPane{common: c}
	p.SetSize(100, 30)
	e := protocol.MakeEntityID(3, 1)
	comp := func(name string) protocol.ComponentValue {
		return protocol.ComponentValue{Component: name, Value: protocol.MapValue(protocol.Field{Name: "V", Value: protocol.IntValue(1)})}
	}
	frame := func(names ...string) detailMsg {
		d := &protocol.Detail{Sub: subDetail, Entity: e, Alive: true}
		for _, n := range names {
			d.Components = append(d.Components, comp(n))
		}
		return detailMsg{d}
	}
	p.open(e)
	p.Update(frame("Energy", "Position"))
	for !strings.Contains(p.lines(p.detail)[p.line].path, "Position.V") {
		pressPane(p, "j")
	}
	p.Update(frame("Age", "Energy", "Position")) // added above the cursor
	if l := p.lines(p.detail)[p.line]; l.path != "Position.V" {
		t.Fatalf("after an add above, the cursor is on %q", l.text)
	}
	p.Update(frame("Age", "Position")) // removed above the cursor
	if l := p.lines(p.detail)[p.line]; l.path != "Position.V" {
		t.Fatalf("after a remove above, the cursor is on %q", l.text)
	}
	pressPane(p, "x")
	if len(src.reqs) > 0 {
		if r, ok := src.reqs[len(src.reqs)-1].(*protocol.RemoveComponent); ok && r.Component != "Position" {
			t.Fatalf("x removes %s, not Position under the cursor", r.Component)
		}
	}
}

// n and r, listed as keys of every view, work from the detail too: n opens
// the spawn form over it.
func TestGlobalKeysWorkInTheDetail(t *testing.T) {
	src := &fakeSource{}
	m := fixtureModel(src)
	m.openEntity(protocol.MakeEntityID(3, 1))
	m.detail.Update(detailMsg{&protocol.Detail{Sub: subDetail, Entity: protocol.MakeEntityID(3, 1), Alive: true}})
	for len(m.modals) > 0 {
		m.closeModal(m.modals[len(m.modals)-1])
	}
	m.Update(keyMsg("n"))
	if len(m.modals) == 0 {
		t.Fatal("n in the detail opened nothing")
	}
	if _, ok := m.modals[len(m.modals)-1].(*componentForm); !ok {
		t.Fatalf("n in the detail opened %T, want the spawn form", m.modals[len(m.modals)-1])
	}
}
