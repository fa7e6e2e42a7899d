package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/client"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestUITableSorts: s sorts by the column under the cursor, ascending then
// descending then off; the agent does the sorting.
func TestUITableSorts(t *testing.T) {
	h := newHarness(t, 160, 30)
	h.waitFor("entities")
	h.keys("3")
	h.waitFor("all entities — ")
	cols := h.m.entities.tableColumns(h.m.entities.page)
	at := -1
	for i, c := range cols {
		if c.name == "Energy.Value" {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no Energy.Value column in %v", cols)
	}
	for range at {
		h.keys("l")
	}
	h.keys("s")
	h.waitFor("sorted by Energy.Value")
	ascending := func(desc bool) {
		t.Helper()
		p := h.m.entities.page
		j := -1
		for i, c := range p.Columns {
			if h.m.compName(c) == "Energy" {
				j = i
			}
		}
		prev := 0.0
		for i, r := range p.Rows {
			v, _ := r.Values[j].Get("Value")
			x := v.Float()
			if i > 0 && (!desc && x < prev || desc && x > prev) {
				t.Fatalf("row %d: %v after %v (descending %v)", i, x, prev, desc)
			}
			prev = x
		}
	}
	ascending(false)
	h.keys("s")
	h.waitFor("sorted by -Energy.Value")
	ascending(true)
	h.keys("s")
	v := h.waitFor("all entities — ")
	if strings.Contains(v, "sorted by") {
		t.Fatal("the third s should turn sorting off")
	}
}

// TestUICursorStaysOnItsEntity: when a new page moves rows, the cursor
// follows the entity it was on.
func TestUICursorStaysOnItsEntity(t *testing.T) {
	m := newModel(newSession(client.GameAt("x", "")), "x")
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.view = viewEntities
	row := func(i uint32) protocol.Row { return protocol.Row{Entity: protocol.MakeEntityID(i, 1)} }
	m.entities.sub = subPageFirst
	m.Update(pageMsg{&protocol.Page{Sub: subPageFirst, Total: 3, Rows: []protocol.Row{row(1), row(2), row(3)}}})
	m.entities.key(keyMsg("down"))
	if m.entities.selected != protocol.MakeEntityID(2, 1) {
		t.Fatalf("selected %v after down", m.entities.selected)
	}
	m.Update(pageMsg{&protocol.Page{Sub: subPageFirst, Total: 3, Rows: []protocol.Row{row(3), row(1), row(2)}}})
	if c := m.entities.cursor; c != 2 {
		t.Fatalf("the cursor is on row %d, want 2 where 2v1 moved", c)
	}
}

// TestUIJournalFiltersAndOpens: / filters the journal (an op here, an
// entity, component or system by the agent), enter opens the row's entity.
func TestUIJournalFiltersAndOpens(t *testing.T) {
	h := newHarness(t, 140, 30)
	h.waitFor("entities")
	h.keys("6")
	h.waitFor("op       entity") // entries in, whichever ops are newest
	h.keys("/")
	if h.m.topPrompt() == nil {
		t.Fatal("/ in the journal did not open its filter")
	}
	h.submit("despawn")
	v := h.waitFor("(filter: despawn)")
	for rows, i := h.m.journalPane.shown(), 0; i < rows.len(); i++ {
		if e := rows.at(i); e.Op != "despawn" {
			t.Fatalf("an op filter let %q through:\n%s", e.Op, v)
		}
	}
	h.keys("/")
	h.m.topPrompt().input.SetValue("")
	h.submit("Predator")
	h.waitFor("(filter: Predator)")
	h.waitFor("Predator")
	h.keys("enter")
	h.waitFor("Entity ")
	if !h.m.detail.shown {
		t.Fatal("enter on a journal row did not open its entity")
	}
}

// TestUIDespawnedEntityStays: after D the detail says when and by whom the
// entity was despawned and keeps its last values on screen, greyed; a
// parent is offered a despawn of itself alone.
func TestUIDespawnedEntityStays(t *testing.T) {
	h := newHarness(t, 140, 40)
	h.waitFor("entities")
	h.keys("o")
	h.submit("0v1") // a pack leader: it has children
	h.waitFor("children")
	h.keys("D", "n") // asked, then declined: nothing is sent
	h.waitFor("cancelled")
	time.Sleep(200 * time.Millisecond)
	h.settle()
	if d := h.m.detail.detail; d == nil || !d.Alive {
		t.Fatal("a declined despawn despawned")
	}
	h.keys("D")
	if !strings.Contains(h.m.View(), "[y/o/N]") {
		t.Fatalf("a parent's despawn does not offer the entity alone:\n%s", h.m.View())
	}
	h.keys("o")
	v := h.waitFor("despawned at tick")
	if !strings.Contains(v, "by client") || !strings.Contains(v, "DEAD") || !strings.Contains(v, "its last state") || !strings.Contains(v, "Position") {
		t.Fatalf("the despawned entity:\n%s", v)
	}
	h.keys("o")
	h.submit("1v1")
	v = h.waitFor("Entity 1v1")
	if strings.Contains(v, "despawned") {
		t.Fatal("despawning 0v1 alone took its child 1v1 with it")
	}
	// Opened again, by handle: the agent's last state, at once.
	h.keys("esc", "o")
	h.submit("0v1")
	v = h.waitFor("Entity 0v1  DEAD")
	if !strings.Contains(v, "its last state") || !strings.Contains(v, "Energy") || !strings.Contains(v, "by client") {
		t.Fatalf("the dead handle opened again:\n%s", v)
	}
}

// TestUIHierarchy: T in the detail view opens the ChildOf tree from the
// topmost ancestor, with counts; enter closes and opens a node; o shows
// the entity under the cursor.
func TestUIHierarchy(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.waitFor("entities")
	h.keys("o")
	h.submit("1v1")
	h.waitFor("parent: 0v1")
	h.keys("T")
	v := h.waitFor("▾ 0v1 (")
	if !strings.Contains(v, "1v1  ◀") || !strings.Contains(v, "children)") {
		t.Fatalf("the tree:\n%s", v)
	}
	h.keys("enter") // the root: close it
	v = h.waitFor("▸ 0v1")
	if strings.Contains(v, "1v1  ◀") {
		t.Fatalf("a closed node still shows its children:\n%s", v)
	}
	h.keys("o")
	h.waitFor("Entity 0v1")
	if h.m.topTree() != nil {
		t.Fatal("o left the tree open")
	}
}
