package inspector

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// patchGrid is a resource as games keep them: a grid of handles, maps by
// name and by number, a pointer.
type patchGrid struct {
	W, H   int
	Cells  []ecs.Entity
	ByName map[string]ecs.Entity
	Counts map[int]int
	Boss   *Name
}

// nests is a resource that is not a struct: a list of handles.
type nests []ecs.Entity

// bigMap is a resource too big to sort or to copy whole.
type bigMap struct{ M map[int]int }

// startResourceGame is the test game with a 16x16 grid of handles, a list
// of handles and a 100,000-entry map as resources.
func startResourceGame(t *testing.T) *game {
	g := startGame(t, Options{})
	g.on(func() {
		grid := patchGrid{W: 16, H: 16, Cells: make([]ecs.Entity, 256), ByName: map[string]ecs.Entity{}, Counts: map[int]int{}, Boss: &Name{Value: "queen"}}
		for i := range grid.Cells {
			grid.Cells[i] = g.ents[i%len(g.ents)]
		}
		for _, n := range []string{"north", "east", "south", "west"} {
			grid.ByName[n] = g.ents[len(n)]
		}
		for i := range 10 {
			grid.Counts[100-i*10] = i
		}
		ecs.SetResource(g.w, grid)
		ecs.SetResource(g.w, nests{g.ents[3], g.ents[4]})
		big := bigMap{M: make(map[int]int, 100_000)}
		for i := range 100_000 {
			big.M[i] = i
		}
		ecs.SetResource(g.w, big)
	})
	return g
}

// page asks for a resource page and fails the test on a refusal.
func (c *testClient) page(m *protocol.GetResource) *protocol.ResourcePage {
	c.t.Helper()
	id := c.request(m)
	got := c.await(func(m protocol.Message) bool {
		switch m := m.(type) {
		case *protocol.ResourcePage:
			return m.Sub == id
		case *protocol.Reply:
			return m.ID == id
		}
		return false
	})
	if r, ok := got.(*protocol.Reply); ok {
		c.t.Fatalf("%+v refused: %s %s", m, r.Code, r.Message)
	}
	return got.(*protocol.ResourcePage)
}

// TestResourcePagesBrowseAGrid: a resource reads as a tree: its fields, a
// window of a big list's items with their handles, one cell by path, map
// entries in key order, through a pointer; every page says how many
// children there are.
func TestResourcePagesBrowseAGrid(t *testing.T) {
	g := startResourceGame(t)
	c := dial(t, g, protocol.Hello{Version: protocol.Version})

	top := c.page(&protocol.GetResource{Name: "patchGrid"})
	if top.Kind != "struct" || top.Total != 6 || len(top.Items) != 6 {
		t.Fatalf("the grid's top is a %s of %d children, %d shown: %+v", top.Kind, top.Total, len(top.Items), top)
	}
	want := []struct {
		key, kind string
		n         int
	}{{"W", "int", 0}, {"H", "int", 0}, {"Cells", "slice", 256}, {"ByName", "map", 4}, {"Counts", "map", 10}, {"Boss", "struct", 1}}
	for i, w := range want {
		it := top.Items[i]
		if it.Key != w.key || it.Kind != w.kind || it.Len != w.n {
			t.Errorf("child %d is %s (%s, %d), want %s (%s, %d)", i, it.Key, it.Kind, it.Len, w.key, w.kind, w.n)
		}
	}

	cells := c.page(&protocol.GetResource{Name: "patchGrid", Path: "Cells", Offset: 250, Limit: 20})
	if cells.Total != 256 || cells.Offset != 250 || len(cells.Items) != 6 {
		t.Fatalf("cells from 250: total %d, offset %d, %d items", cells.Total, cells.Offset, len(cells.Items))
	}
	for i, it := range cells.Items {
		e := g.ents[(250+i)%len(g.ents)]
		if it.Key != fmt.Sprint(250+i) || it.Kind != "entity" || protocol.EntityID(it.Value.Uint()) != wire(e) {
			t.Errorf("cell %d: %s %s %v, want the handle %v", 250+i, it.Key, it.Kind, it.Value, e)
		}
	}
	if cells.ItemPath(0) != "Cells[250]" {
		t.Errorf("the first cell's path is %q", cells.ItemPath(0))
	}
	one := c.page(&protocol.GetResource{Name: "patchGrid", Path: "Cells[250]"})
	if one.Kind != "entity" || protocol.EntityID(one.Value.Uint()) != wire(g.ents[250%len(g.ents)]) || one.Total != 0 {
		t.Errorf("Cells[250] read %+v", one)
	}

	byName := c.page(&protocol.GetResource{Name: "patchGrid", Path: "ByName"})
	var keys []string
	for _, it := range byName.Items {
		keys = append(keys, it.Key)
	}
	if strings.Join(keys, " ") != "east north south west" || byName.Unordered {
		t.Errorf("a map's entries came as %v (unordered %v), want them by key", keys, byName.Unordered)
	}
	if west := c.page(&protocol.GetResource{Name: "patchGrid", Path: "ByName[west]"}); protocol.EntityID(west.Value.Uint()) != wire(g.ents[4]) {
		t.Errorf("ByName[west] read %v", west.Value)
	}
	counts := c.page(&protocol.GetResource{Name: "patchGrid", Path: "Counts", Limit: 3})
	if len(counts.Items) != 3 || counts.Items[0].Key != "10" || counts.Items[2].Key != "30" {
		t.Errorf("an int-keyed map's first entries: %+v, want 10 20 30 in number order", counts.Items)
	}
	if boss := c.page(&protocol.GetResource{Name: "patchGrid", Path: "Boss.Value"}); boss.Value.Str() != "queen" {
		t.Errorf("through the pointer, Boss.Value read %v", boss.Value)
	}
}

// TestResourceThatIsAList: a resource that is not a struct carries its
// type in the summary (handles known as handles) and pages like a field.
func TestResourceThatIsAList(t *testing.T) {
	g := startResourceGame(t)
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	c.request(&protocol.Subscribe{What: protocol.SubSummary})
	var res *protocol.Resource
	for res == nil {
		s := c.summary()
		for i := range s.Resources {
			if s.Resources[i].Name == "nests" {
				res = &s.Resources[i]
			}
		}
	}
	if sc := res.Schema(); sc.Kind != "slice" || sc.Elem == nil || sc.Elem.Kind != "entity" {
		t.Fatalf("the list resource's schema is %+v", sc)
	}
	got := protocol.HandlesAsTextFor(res.Value, res.Schema())
	if got.String() != fmt.Sprintf("[%q %q]", wire(g.ents[3]), wire(g.ents[4])) {
		t.Errorf("the list's handles as text: %v", got)
	}
	p := c.page(&protocol.GetResource{Name: "nests"})
	if p.Kind != "slice" || p.Total != 2 || p.Items[1].Kind != "entity" || p.ItemPath(1) != "[1]" {
		t.Errorf("the list's page: %+v", p)
	}
}

// TestWholeResourceValue: all asks for the value at a path whole, within
// a bound on what the game copies; past it the answer says to page.
func TestWholeResourceValue(t *testing.T) {
	g := startResourceGame(t)
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	cells := c.page(&protocol.GetResource{Name: "patchGrid", Path: "Cells", All: true})
	if cells.Value.Len() != 256 || protocol.EntityID(cells.Value.Index(255).Uint()) != wire(g.ents[255%len(g.ents)]) {
		t.Fatalf("the whole of Cells has %d items, the last %v", cells.Value.Len(), cells.Value.Index(cells.Value.Len()-1))
	}
	r := c.reply(&protocol.GetResource{Name: "bigMap", All: true})
	if r.Code != protocol.ErrTooLarge || !strings.Contains(r.Message, "page") {
		t.Errorf("a 100,000-entry map whole: %s %q, want too-large saying to page", r.Code, r.Message)
	}
	big := c.page(&protocol.GetResource{Name: "bigMap", Path: "M", Offset: 5, Limit: 10})
	if !big.Unordered || big.Total != 100_000 || len(big.Items) != 10 {
		t.Errorf("a map past the sorting bound: unordered %v, total %d, %d items", big.Unordered, big.Total, len(big.Items))
	}
	// A page over the client's frame limit is an error in its place,
	// answering the request that asked for it.
	small := dial(t, g, protocol.Hello{Version: protocol.Version, MaxFrame: 512})
	r = awaitReply(small, small.request(&protocol.GetResource{Name: "patchGrid", Path: "Cells", All: true}))
	if r.Code != protocol.ErrTooLarge || !strings.Contains(r.Message, "frame limit of 512 B") {
		t.Errorf("a resource page over the client's frame limit: %+v, want too-large with the sizes", r)
	}
}

// TestResourceRequestsRefused: a name or path that leads nowhere, a path
// that does not parse, a window past the bound: each gets its code and
// says why; the game runs on.
func TestResourceRequestsRefused(t *testing.T) {
	g := startResourceGame(t)
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	for _, tc := range []struct {
		m    *protocol.GetResource
		code string
		says string
	}{
		{&protocol.GetResource{Name: "Weather"}, protocol.ErrNotFound, "bigMap, nests, patchGrid"},
		{&protocol.GetResource{Name: "patchGrid", Path: "Cells[999]"}, protocol.ErrNotFound, "256 items"},
		{&protocol.GetResource{Name: "patchGrid", Path: "Cells[x]"}, protocol.ErrNotFound, "no item [x]"},
		{&protocol.GetResource{Name: "patchGrid", Path: "ByName[up]"}, protocol.ErrNotFound, `no key "up"`},
		{&protocol.GetResource{Name: "patchGrid", Path: "W.X"}, protocol.ErrNotFound, "W:"},
		{&protocol.GetResource{Name: "patchGrid", Path: "Cells["}, protocol.ErrBadValue, "missing ]"},
		{&protocol.GetResource{Name: "patchGrid", Limit: protocol.MaxResourceItems + 1}, protocol.ErrBadValue, "l (children)"},
		{&protocol.GetResource{}, protocol.ErrBadValue, "names the resource"},
	} {
		r := c.reply(tc.m)
		if r.Code != tc.code || !strings.Contains(r.Message, tc.says) {
			t.Errorf("%+v: %s %q, want %s saying %q", tc.m, r.Code, r.Message, tc.code, tc.says)
		}
	}
	before := g.frames.Load()
	c.page(&protocol.GetResource{Name: "patchGrid"})
	c.page(&protocol.GetResource{Name: "patchGrid"})
	if g.frames.Load() == before {
		t.Error("the game stopped")
	}
}

// TestResourceSubscriptionFollowsChanges: a resource subscription sends
// the page again as the game changes the value.
func TestResourceSubscriptionFollowsChanges(t *testing.T) {
	g := startResourceGame(t)
	c := dial(t, g, protocol.Hello{Version: protocol.Version})
	if r := c.reply(&protocol.Subscribe{What: protocol.SubResource, Resource: "patchGrid", Path: "Cells", Limit: 4, Hz: 30}); !r.OK {
		t.Fatalf("subscribe: %s %s", r.Code, r.Message)
	}
	first := func(want ecs.Entity) {
		t.Helper()
		c.await(func(m protocol.Message) bool {
			p, ok := m.(*protocol.ResourcePage)
			return ok && len(p.Items) == 4 && protocol.EntityID(p.Items[0].Value.Uint()) == wire(want)
		})
	}
	first(g.ents[0])
	g.on(func() { ecs.Resource[patchGrid](g.w).Cells[0] = g.ents[7] })
	first(g.ents[7])
	if r := c.reply(&protocol.Subscribe{What: protocol.SubResource, Resource: "Weather"}); r.Code != protocol.ErrNotFound {
		t.Errorf("a subscription to no resource: %s %s", r.Code, r.Message)
	}
}

// TestResourceAttacksLeaveTheGameAlone: a read-only client subscribes to
// pages of a 100,000-entry map far past its end, at the highest rate,
// and floods whole-value requests, big and small: the game keeps its
// pace, every page stops where the bound says (a map too big to sort is
// paged no further than its first 4,096 entries, 1,000 children a page),
// and every whole request is answered whole or refused too-large.
func TestResourceAttacksLeaveTheGameAlone(t *testing.T) {
	g := startResourceGame(t)
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Caps: []string{"read"}})
	const subs = 40
	underAttack(t, g, func() {
		for range subs {
			c.request(&protocol.Subscribe{What: protocol.SubResource, Resource: "bigMap", Path: "M", Offset: protocol.MaxOffset, Limit: protocol.MaxResourceItems, Hz: 1000})
		}
		asked := map[uint32]bool{}
		for i := range 100 {
			if i%2 == 0 {
				asked[c.request(&protocol.GetResource{Name: "bigMap", All: true})] = true
			} else {
				asked[c.request(&protocol.GetResource{Name: "patchGrid", All: true})] = true
			}
		}
		pages, whole, refused := 0, 0, 0
		for pages < 3*subs || len(asked) > 0 {
			switch m := c.await(func(protocol.Message) bool { return true }).(type) {
			case *protocol.ResourcePage:
				if asked[m.Sub] {
					delete(asked, m.Sub)
					if m.Name != "patchGrid" || m.Value.Kind() != protocol.KindMap {
						t.Fatalf("a whole request answered %+v", m)
					}
					whole++
					continue
				}
				pages++
				if m.Offset != protocol.MaxSortedKeys || !m.Unordered || len(m.Items) != protocol.MaxResourceItems {
					t.Fatalf("a page asked past the end of a 100,000-entry map: offset %d, unordered %v, %d items", m.Offset, m.Unordered, len(m.Items))
				}
			case *protocol.Reply:
				if asked[m.ID] {
					delete(asked, m.ID)
					if m.Code != protocol.ErrTooLarge {
						t.Fatalf("a whole request refused %s %s", m.Code, m.Message)
					}
					refused++
				}
			}
		}
		if whole != 50 || refused != 50 {
			t.Fatalf("%d whole answers and %d refusals, want 50 of each", whole, refused)
		}
	})
}
