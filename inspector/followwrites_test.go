package inspector

import (
	"strings"
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

// TestProvenanceThroughARewind: after a rewind, a value as restored says
// so ("restored at tick T by client N"), apart from who wrote it: for a
// followed entity, the write seen at or before T; for another, the write
// the in-memory recording's marks name (never the client that asked for
// the rewind). A frame later the writer
// is the system that changed it again.
func TestProvenanceThroughARewind(t *testing.T) {
	g := startDemo(t, 2000, 0, Options{RewindHz: 1000})
	c := dial(t, &game{agent: g.agent}, protocol.Hello{Client: "ui"})
	id := c.request(&protocol.Query{Expr: "Herbivore Energy", Limit: 2})
	page := c.await(func(m protocol.Message) bool { p, ok := m.(*protocol.Page); return ok && p.Sub == id }).(*protocol.Page)
	if len(page.Rows) != 2 {
		t.Fatalf("want two herbivores: %+v", page)
	}
	followed, other := page.Rows[0].Entity, page.Rows[1].Entity
	sub := c.request(&protocol.Subscribe{What: protocol.SubEntity, Entity: followed, Hz: 100})
	energy := func(d *protocol.Detail) protocol.ComponentValue {
		for _, cv := range d.Components {
			if cv.Component == "Energy" {
				return cv
			}
		}
		t.Fatalf("no Energy in %+v", d)
		return protocol.ComponentValue{}
	}
	detailOf := func(e protocol.EntityID, want func(*protocol.Detail) bool) *protocol.Detail {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			var d *protocol.Detail
			if e == followed {
				d = c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == sub }).(*protocol.Detail)
			} else {
				id := c.request(&protocol.GetEntity{Entity: e})
				d = c.await(func(m protocol.Message) bool { d, ok := m.(*protocol.Detail); return ok && d.Sub == id }).(*protocol.Detail)
			}
			if !d.Alive {
				t.Skipf("%v died", e)
			}
			if want(d) {
				return d
			}
		}
		t.Fatalf("no detail of %v as wanted in 10 s", e)
		return nil
	}
	for g.frames.Load() < 120 {
		time.Sleep(10 * time.Millisecond)
	}
	detailOf(followed, func(d *protocol.Detail) bool { wr := energy(d).Written; return wr != nil && wr.Seen })
	wantOK(t, "pause", c.reply(&protocol.Pause{}))
	now := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused }).Tick
	wantOK(t, "rewind", c.reply(&protocol.Rewind{Tick: now - 50}))
	back := c.summaryWhere(func(s *protocol.Summary) bool { return s.Paused && s.Tick <= now-50 }).Tick
	d := detailOf(followed, func(d *protocol.Detail) bool { return d.Tick == back && energy(d).Restored != nil })
	cv := energy(d)
	if cv.Restored.Tick != back || !strings.Contains(cv.Restored.By, "ui") {
		t.Fatalf("restored: %+v, want tick %d by the client", cv.Restored, back)
	}
	if wr := cv.Written; wr == nil || !wr.Seen || wr.Tick > back || (wr.By != "hunger" && wr.By != "grazing") {
		t.Fatalf("the followed entity's Energy after the rewind written by %+v, want a system's write at or before tick %d", wr, back)
	}
	cv = energy(detailOf(other, func(*protocol.Detail) bool { return true }))
	if wr := cv.Written; cv.Restored == nil || wr == nil || wr.Tick > back || strings.Contains(wr.By, "ui") {
		t.Fatalf("an unfollowed entity's Energy after the rewind: restored %+v, written %+v, want a write at or before tick %d", cv.Restored, cv.Written, back)
	}
	wantOK(t, "step", c.reply(&protocol.Step{N: 1}))
	d = detailOf(followed, func(d *protocol.Detail) bool { return d.Tick == back+1 })
	if cv := energy(d); cv.Restored != nil || cv.Written == nil || cv.Written.Tick != back+1 {
		t.Fatalf("a frame after the rewind: restored %+v, written %+v", cv.Restored, cv.Written)
	}
}
