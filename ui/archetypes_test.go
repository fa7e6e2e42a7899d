package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestArchetypesPane(t *testing.T) {
	c, _, nav := fixture()
	p := sized(&archetypesPane{common: c}, 100, 20)
	v := screenText(p.View())
	if strings.Contains(v, "(no components)") || !strings.Contains(v, "1 empty hidden (z)") {
		t.Fatalf("the empty archetype should be hidden, and the header say so:\n%s", v)
	}
	mustContain(t, p.View(), "Position Energy", "Position Target")
	// enter lists the archetype under the cursor: the second shown is id 2.
	pressPane(p, "j", "enter")
	if len(nav.archs) != 1 || nav.archs[0] != 3 {
		t.Fatalf("enter on archetype 2 asked for %v, want [3] (1 + id)", nav.archs)
	}
	pressPane(p, "z")
	mustContain(t, p.View(), "(no components)")
	pressPane(p, "g", "enter")
	if nav.archs[1] != 1 {
		t.Fatalf("with empty ones shown, the first row is archetype 0: asked %v", nav.archs)
	}
}

// TestArchetypesPaneNamesTheTarget: a table of one relation target's
// holders names the target beside the relation's component.
func TestArchetypesPaneNamesTheTarget(t *testing.T) {
	c, _, _ := fixture()
	for i, a := range c.summary.Archetypes {
		if a.Len > 0 && len(a.Components) > 0 {
			c.summary.Archetypes[i].Targets = []protocol.ArchetypeTarget{{Kind: a.Components[0], Target: protocol.MakeEntityID(7, 2)}}
			want := c.compName(a.Components[0]) + "→7v2"
			p := sized(&archetypesPane{common: c}, 100, 20)
			mustContain(t, p.View(), want)
			return
		}
	}
	t.Fatal("the fixture has no archetype with components")
}
