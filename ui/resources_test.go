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

// nestValue is a resource of handles: a list of members (one the zero
// handle), a map by name, a count, and 300 numbers to page through.
func nestValue() (protocol.Value, *protocol.FieldSchema) {
	ent := &protocol.FieldSchema{Kind: "entity", Type: "ecs.Entity"}
	schema := &protocol.FieldSchema{Kind: "struct", Fields: []protocol.FieldSchema{
		{Name: "Members", Kind: "slice", Type: "[]ecs.Entity", Elem: ent},
		{Name: "ByName", Kind: "map", Type: "map[string]ecs.Entity", Key: &protocol.FieldSchema{Kind: "string"}, Elem: ent},
		{Name: "Count", Kind: "int", Type: "int"},
		{Name: "Depth", Kind: "slice", Type: "[]int", Elem: &protocol.FieldSchema{Kind: "int", Type: "int"}},
	}}
	depth := make([]protocol.Value, 300)
	for i := range depth {
		depth[i] = protocol.IntValue(int64(i * 10))
	}
	v := protocol.MapValue(
		protocol.Field{Name: "Members", Value: protocol.ListValue(protocol.UintValue(uint64(protocol.MakeEntityID(5, 1))), protocol.UintValue(0))},
		protocol.Field{Name: "ByName", Value: protocol.MapValue(protocol.Field{Name: "queen", Value: protocol.UintValue(uint64(protocol.MakeEntityID(9, 2)))})},
		protocol.Field{Name: "Count", Value: protocol.IntValue(2)},
		protocol.Field{Name: "Depth", Value: protocol.ListValue(depth...)},
	)
	return v, schema
}

// answerResource plays the agent: it answers the pane's newest resource
// subscription from the whole value, as a recording's player does.
func answerResource(t *testing.T, p *resourcesPane, src *fakeSource, v protocol.Value, s *protocol.FieldSchema) protocol.Subscribe {
	t.Helper()
	sub := src.subs[len(src.subs)-1]
	if sub.What != protocol.SubResource {
		t.Fatalf("the newest subscription is %+v, not a resource", sub)
	}
	page, err := protocol.PageOfValue(sub.Resource, v, s, sub.Path, sub.Offset, sub.Limit, false)
	if err != nil {
		t.Fatalf("%+v: %v", sub, err)
	}
	page.Sub = sub.ID
	p.Update(resourceMsg{page})
	return sub
}

// TestResourcesPaneBrowsesATree: enter browses a resource: its fields,
// then a list's items with handles printed as handles; enter on a handle
// follows it, on the zero handle says it names nothing; pages move the
// agent's window; esc climbs back to where the cursor was, then to the list.
func TestResourcesPaneBrowsesATree(t *testing.T) {
	c, src, nav := fixture()
	v, s := nestValue()
	c.summary.Resources = append(c.summary.Resources, protocol.Resource{Name: "Nest", Value: v, Fields: s.Fields})
	p := sized(&resourcesPane{common: c}, 80, 20)
	mustContain(t, p.View(), "Nest", "{Members:[5v1 none]", "queen:9v2")
	pressPane(p, "j", "enter")
	answerResource(t, p, src, v, s)
	mustContain(t, p.View(), "Nest   struct", "4 fields", "Members [2] [5v1 none]", "ByName  {1} {queen:9v2}", "Count   2")

	pressPane(p, "enter") // into Members
	if sub := answerResource(t, p, src, v, s); sub.Path != "Members" || sub.Offset != 0 {
		t.Fatalf("enter on Members subscribed %+v", sub)
	}
	mustContain(t, p.View(), "Nest.Members   slice []ecs.Entity, 2 items", "0    5v1 →", "1    none")
	p.walk.page.Items[0].Written = &protocol.Provenance{Tick: 41, By: "updateObjects", Seen: true} // as the agent says it
	mustContain(t, p.View(), "0    5v1 →   written at tick 41 by updateObjects")
	p.walk.page.Items[0].Written = nil
	pressPane(p, "enter")
	if len(nav.followed) != 1 || nav.followed[0] != protocol.MakeEntityID(5, 1) {
		t.Fatalf("enter on a handle followed %v", nav.followed)
	}
	pressPane(p, "j", "enter")
	if len(nav.followed) != 1 || len(nav.flashes) == 0 || !strings.Contains(nav.flashes[len(nav.flashes)-1], "zero handle") {
		t.Fatalf("enter on the zero handle: followed %v, said %v", nav.followed, nav.flashes)
	}

	pressPane(p, "esc") // back to the top, the cursor on Members
	answerResource(t, p, src, v, s)
	pressPane(p, "j", "j", "j", "enter") // into Depth, 300 items
	answerResource(t, p, src, v, s)
	mustContain(t, p.View(), "Nest.Depth   slice []int, 300 items (0-17 shown)", "16   160")
	pressPane(p, "pgdown", "pgdown") // the second waits for the first's page, then goes on
	answerResource(t, p, src, v, s)
	sub := answerResource(t, p, src, v, s)
	if sub.Path != "Depth" || sub.Offset == 0 || sub.Limit != 17 {
		t.Fatalf("paging down subscribed %+v", sub)
	}
	mustContain(t, p.View(), "34   340")
	pressPane(p, "G")
	answerResource(t, p, src, v, s)
	mustContain(t, p.View(), "299  2990")

	pressPane(p, "esc")
	if sub := answerResource(t, p, src, v, s); sub.Path != "" {
		t.Fatalf("esc from Depth subscribed %+v", sub)
	}
	if it, _, ok := p.selectedItem(); !ok || it.Key != "Depth" {
		t.Errorf("back at the top, the cursor is on %+v, not Depth", it)
	}
	unsubs := len(src.unsubs)
	pressPane(p, "esc")
	if p.walk != nil || len(src.unsubs) != unsubs+1 {
		t.Fatalf("esc at the top: walk %+v, unsubscribed %v", p.walk, src.unsubs)
	}
	mustContain(t, p.View(), "resource", "Nest", "    [0] = 5v1", "    queen = 9v2")
}

// TestResourcesPaneSaysWhyNot: a refused page (the resource went away)
// says why in place, and esc still goes back.
func TestResourcesPaneSaysWhyNot(t *testing.T) {
	c, src, _ := fixture()
	p := sized(&resourcesPane{common: c}, 80, 20)
	pressPane(p, "enter")
	sub := src.subs[len(src.subs)-1]
	p.Update(replyMsg{r: &protocol.Reply{ID: sub.ID, Code: protocol.ErrNotFound, Message: "no resource Gravity; the world has Wind"}})
	mustContain(t, p.View(), "Gravity", "no resource Gravity; the world has Wind")
	p.Update(replyMsg{r: &protocol.Reply{ID: sub.ID + 99, Code: protocol.ErrNotFound, Message: "another's"}})
	mustContain(t, p.View(), "no resource Gravity")
	pressPane(p, "esc")
	if p.walk != nil {
		t.Fatal("esc did not leave the browser")
	}
}
