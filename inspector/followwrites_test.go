package inspector

import (
	"testing"
	"time"

	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestDetailNamesTheWriterThatChangedTheValue: in the demo, reproduction
// iterates every animal's Energy mutably after hunger changed it; the
// writer log names reproduction, but a followed entity's Energy is seen
// to change in hunger's run, and the detail says hunger, seen. Before a
// change is seen it gives the writer log's answer, unseen.
func TestDetailNamesTheWriterThatChangedTheValue(t *testing.T) {
	g := startSim(t, 400)
	c := dial(t, g, protocol.Hello{Version: protocol.Version, Client: "ui"})
	id := c.request(&protocol.Query{Expr: "Herbivore Energy", Limit: 1})
	page := c.await(func(m protocol.Message) bool { p, ok := m.(*protocol.Page); return ok && p.Sub == id }).(*protocol.Page)
	if len(page.Rows) != 1 {
		t.Fatalf("no herbivore: %+v", page)
	}
	e := page.Rows[0].Entity
	energy := func(d *protocol.Detail) *protocol.Provenance {
		for _, cv := range d.Components {
			if cv.Component == "Energy" {
				return cv.Written
			}
		}
		t.Fatalf("no Energy in %+v", d)
		return nil
	}
	get := c.request(&protocol.GetEntity{Entity: e}) // not followed: the writer log's answer
	d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == get }).(*protocol.Detail)
	if wr := energy(d); wr == nil || wr.Seen || wr.By != "reproduction" {
		t.Fatalf("an unfollowed entity's Energy: %+v, want the writer log's reproduction, unseen", wr)
	}
	sub := c.request(&protocol.Subscribe{What: protocol.SubEntity, Entity: e, Hz: 100})
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == sub }).(*protocol.Detail)
		if !d.Alive {
			t.Skipf("%v died before a frame was seen", e)
		}
		if wr := energy(d); wr != nil && wr.Seen {
			if wr.By != "hunger" && wr.By != "grazing" {
				t.Fatalf("Energy seen written by %q, want hunger (or grazing): reproduction only held it", wr.By)
			}
			if wr.By == "hunger" && wr.Tick != d.Tick {
				t.Fatalf("hunger's write seen at tick %d in the detail of tick %d", wr.Tick, d.Tick)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no write of Energy seen in 10 s")
		}
	}
}
