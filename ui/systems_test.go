package ui

import (
	"strings"
	"testing"
)

func TestSystemsPane(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&systemsPane{common: c}, 140, 20)
	v := screenText(p.View())
	// By stage in schedule order, the costliest first, each stage against the budget.
	update, render := strings.Index(v, "stage update: 4.00ms"), strings.Index(v, "stage render")
	hunt, move := strings.Index(v, "hunt"), strings.Index(v, "move")
	if update < 0 || render < update || hunt > move || hunt < update || !strings.Contains(v, "16.67ms budget") {
		t.Fatalf("systems not grouped by stage against the budget:\n%s", v)
	}
	mustContain(t, p.View(), "r:Target", "w:Position", "(declares no access)")
	// The cursor moves over the stage lines and the systems: five rows.
	pressPane(p, "G")
	if p.cursor != 4 {
		t.Fatalf("G put the cursor on row %d, want 4", p.cursor)
	}
	narrow := sized(&systemsPane{common: c}, 80, 20)
	mustContain(t, narrow.View(), "w:Position")
}
