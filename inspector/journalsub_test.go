package inspector

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestJournalSubscriptionsFilter: journal subscriptions filtered by a
// component, an entity and a writer each get the entries they name, the
// unfiltered one all of them, in order; a second subscription with a
// filter the client already follows is refused, naming the first.
func TestJournalSubscriptionsFilter(t *testing.T) {
	g := startGame(t, Options{})
	// One client reads the journals, another edits: a client waiting for
	// a reply would skip the journal frames that come before it.
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "filters"})
	ed := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "editor"})
	victim := wire(g.ents[4])
	subs := map[uint32]string{} // by subscription id: the request's
	for _, f := range []string{"", "Frozen", victim.String(), "client 2 (editor)"} {
		r := c.reply(&protocol.Subscribe{What: protocol.SubJournal, Hz: 60, Filter: f})
		wantOK(t, "subscribe "+f, r)
		subs[r.ID] = f
	}
	if r := c.reply(&protocol.Subscribe{What: protocol.SubJournal, Hz: 60, Filter: "Frozen"}); r.OK || !strings.Contains(r.Message, "as subscription 2") {
		t.Fatalf("a second journal with the same filter: %+v", r)
	}
	wantOK(t, "add", ed.reply(&protocol.AddComponent{Entity: wire(g.ents[3]), Component: "Frozen"}))
	wantOK(t, "despawn", ed.reply(&protocol.Despawn{Entity: victim}))
	got := map[uint32][]string{}
	for len(got[1]) < 2 || len(got[2]) < 1 || len(got[3]) < 1 || len(got[4]) < 2 {
		j := c.await(func(m protocol.Message) bool { _, ok := m.(*protocol.Journal); return ok }).(*protocol.Journal)
		for _, e := range j.Entries {
			if e.System == "client 2 (editor)" {
				got[j.Sub] = append(got[j.Sub], e.Op+" "+e.Entity.String())
			}
		}
	}
	add, despawn := "add "+wire(g.ents[3]).String(), "despawn "+victim.String()
	for id, want := range map[uint32]string{1: add + "," + despawn, 2: add, 3: despawn, 4: add + "," + despawn} {
		if s := strings.Join(got[id], ","); s != want {
			t.Errorf("the journal filtered by %q: %s, want %s", subs[id], s, want)
		}
	}
}

// TestDetailListsAWindowOfChildren: a root of 2,500 children is answered
// with 1,000 of them and their number, and a request's offset pages on;
// an entity subscription's frames are bounded the same way.
func TestDetailListsAWindowOfChildren(t *testing.T) {
	g := startGame(t, Options{})
	root := g.ents[0]
	var kids []protocol.EntityID
	g.on(func() {
		for range 2500 {
			k := g.w.Spawn()
			if err := g.w.SetParent(k, root); err != nil {
				t.Error(err)
			}
			kids = append(kids, wire(k))
		}
	})
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "pager"})
	get := func(offset int) *protocol.Detail {
		id := c.request(&protocol.GetEntity{Entity: wire(root), Offset: offset})
		return c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
	}
	d := get(0)
	if d.ChildCount != 2501 || len(d.Children) != protocol.MaxDetailChildren { // g.ents[2] is its child too
		t.Fatalf("the first window: %d listed of %d", len(d.Children), d.ChildCount)
	}
	last := get(2000)
	if len(last.Children) != 501 || last.Children[len(last.Children)-1] != kids[len(kids)-1] {
		t.Fatalf("from the 2,000th: %d listed, the last %v, want 501 ending %v", len(last.Children), last.Children[len(last.Children)-1], kids[len(kids)-1])
	}
	sub := c.request(&protocol.Subscribe{What: protocol.SubEntity, Entity: wire(root), Hz: 60, Offset: 2400})
	f := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == sub }).(*protocol.Detail)
	if len(f.Children) != 101 || f.ChildCount != 2501 {
		t.Fatalf("the subscription from the 2,400th: %d of %d", len(f.Children), f.ChildCount)
	}
}
