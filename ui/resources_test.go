package ui

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestResourcesPane(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&resourcesPane{common: c}, 80, 20)
	mustContain(t, p.View(), "Gravity", "{G:9.8}")
	pressPane(p, "j", "j", "j")
	if p.cursor != 0 {
		t.Fatalf("the cursor left the only row: %d", p.cursor)
	}
	c.summary.Resources = []protocol.Resource(nil)
	mustContain(t, p.View(), "no resources")
}
