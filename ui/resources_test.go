package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestResourcesPane(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&resourcesPane{common: c}, 80, 20)
	mustContain(t, p.View(), "Gravity", "{G:9.8}", "  G = 9.8")
	pressPane(p, "j", "j", "j")
	if p.cursor != 0 {
		t.Fatalf("the cursor left the only row: %d", p.cursor)
	}
	c.summary.Resources = []protocol.Resource(nil)
	mustContain(t, p.View(), "no resources")
}

// TestResourcesPaneShowsTheSelectedOneWhole: a resource wider than the
// screen is cut in the list, and shown below it a field a line; what does
// not fit says how much more there is.
func TestResourcesPaneShowsTheSelectedOneWhole(t *testing.T) {
	c, _, _ := fixture()
	var fields []protocol.Field
	for i := range 30 {
		fields = append(fields, protocol.Field{Name: fmt.Sprintf("Counter%02d", i), Value: protocol.IntValue(int64(1000 + i))})
	}
	c.summary.Resources = []protocol.Resource{
		{Name: "Clock", Value: protocol.MapValue(protocol.Field{Name: "Frame", Value: protocol.IntValue(7)})},
		{Name: "Stats", Value: protocol.MapValue(fields...)},
	}
	p := sized(&resourcesPane{common: c}, 60, 24)
	view := strings.Join(p.View(), "\n")
	if strings.Contains(view, "Counter00 = ") || !strings.Contains(view, "  Frame = 7") {
		t.Fatalf("with Clock selected:\n%s", view)
	}
	pressPane(p, "j")
	view = strings.Join(p.View(), "\n")
	if !strings.Contains(view, "  Counter00 = 1000") || !strings.Contains(view, "  Counter15 = 1015") || !strings.Contains(view, "more lines") {
		t.Fatalf("Stats selected: its fields a line each, the rest counted:\n%s", view)
	}
	if n := len(p.View()); n > 24 {
		t.Fatalf("%d lines in a pane of 24", n)
	}
}
