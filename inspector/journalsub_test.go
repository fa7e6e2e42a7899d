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
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "filters"})
	victim := wire(g.ents[4])
	subs := map[uint32]string{} // by subscription id: the request's
	for _, f := range []string{"", "Frozen", victim.String(), "client 1 (filters)"} {
		r := c.reply(&protocol.Subscribe{What: protocol.SubJournal, Hz: 60, Filter: f})
		wantOK(t, "subscribe "+f, r)
		subs[r.ID] = f
	}
	if r := c.reply(&protocol.Subscribe{What: protocol.SubJournal, Hz: 60, Filter: "Frozen"}); r.OK || !strings.Contains(r.Message, "as subscription 2") {
		t.Fatalf("a second journal with the same filter: %+v", r)
	}
	wantOK(t, "add", c.reply(&protocol.AddComponent{Entity: wire(g.ents[3]), Component: "Frozen"}))
	wantOK(t, "despawn", c.reply(&protocol.Despawn{Entity: victim}))
	got := map[uint32][]string{}
	for len(got[1]) < 2 || len(got[2]) < 1 || len(got[3]) < 1 || len(got[4]) < 2 {
		j := c.await(func(m protocol.Message) bool { _, ok := m.(*protocol.Journal); return ok }).(*protocol.Journal)
		for _, e := range j.Entries {
			if e.System == "client 1 (filters)" {
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
