package ui

import (
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestTreeClimbsToTheTopAndOpensByHand: the hierarchy asks for the entity,
// climbs to its topmost ancestor one GetEntity at a time, loads the
// children of what is open and no more, shows each node with its count
// and the entity it opened on, and follows a node with o.
func TestTreeClimbsToTheTopAndOpensByHand(t *testing.T) {
	c, src, nav := fixture()
	root, mid, leaf, sib, grand := protocol.MakeEntityID(1, 1), protocol.MakeEntityID(2, 1), protocol.MakeEntityID(3, 1), protocol.MakeEntityID(4, 1), protocol.MakeEntityID(5, 1)
	world := map[protocol.EntityID]*protocol.Detail{
		root:  {Entity: root, Alive: true, Children: []protocol.EntityID{mid, sib}},
		mid:   {Entity: mid, Alive: true, Parent: root, Children: []protocol.EntityID{leaf}},
		leaf:  {Entity: leaf, Alive: true, Parent: mid},
		sib:   {Entity: sib, Alive: true, Parent: root, Children: []protocol.EntityID{grand}},
		grand: {Entity: grand, Parent: sib},
	}
	tree := newTree(c, leaf)
	tree.SetSize(100, 20)
	tree.Init()
	answered := 0
	answer := func() { // the agent answers every GetEntity asked so far
		for ; answered < len(src.reqs); answered++ {
			g := src.reqs[answered].(*protocol.GetEntity)
			d := *world[g.Entity]
			d.Sub = g.ID
			tree.Update(detailMsg{&d})
		}
	}
	answer()
	asked := map[protocol.EntityID]bool{}
	for _, r := range src.reqs {
		asked[r.(*protocol.GetEntity).Entity] = true
	}
	if tree.root != root || !asked[leaf] || !asked[mid] || !asked[root] || !asked[sib] || asked[grand] {
		t.Fatalf("root %v, asked %v", tree.root, asked)
	}
	mustContain(t, tree.View(), "▾ 1v1 (2 children)", "  ▾ 2v1 (1 children)", "    · 3v1  ◀", "  ▸ 4v1 (1 children)")
	press := func(keys ...string) {
		for _, k := range keys {
			tree.Update(keyMsg(k))
		}
	}
	press("down", "down", "down", "enter") // open the sibling
	answer()
	mustContain(t, tree.View(), "  ▾ 4v1 (1 children)", "    · 5v1 despawned")
	press("down", "o")
	if len(nav.followed) != 1 || nav.followed[0] != grand {
		t.Fatalf("o followed %v", nav.followed)
	}
}
