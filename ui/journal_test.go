package ui

import (
	"strings"
	"testing"

	"github.com/ecsinspect/ecsinspect/protocol"
)

func TestJournalPane(t *testing.T) {
	c, src, nav := fixture()
	p := sized(&journalPane{common: c}, 120, 20)
	mustContain(t, p.View(), "no structural changes yet")
	entry := func(seq uint64, op string, e uint32) protocol.JournalEntry {
		return protocol.JournalEntry{Seq: seq, Frame: seq, Op: op, Entity: protocol.MakeEntityID(e, 1), Component: 2, System: "hunt"}
	}
	p.Update(journalMsg{j: &protocol.Journal{Entries: []protocol.JournalEntry{entry(1, "spawn", 1), entry(2, "add", 2), entry(3, "despawn", 3)}}})
	mustContain(t, p.View(), "despawn", "Energy", "hunt")
	// Below the top the cursor follows its row as new entries arrive.
	pressPane(p, "j") // on seq 2 (newest first)
	p.Update(journalMsg{j: &protocol.Journal{Entries: []protocol.JournalEntry{entry(4, "add", 4)}}})
	pressPane(p, "enter")
	if len(nav.opened) != 1 || nav.opened[0] != protocol.MakeEntityID(2, 1) {
		t.Fatalf("enter opened %v, want 2v1 (the row the cursor was on)", nav.opened)
	}
	// An op is filtered here; anything else the agent filters.
	pressPane(p, "/")
	if len(nav.pushed) != 1 {
		t.Fatal("/ did not open the journal's filter")
	}
	pr := nav.pushed[0].(*prompt)
	pr.input.SetValue("despawn")
	pr.Update(keyMsg("enter"))
	if p.op != "despawn" || src.subs[len(src.subs)-1].Filter != "" {
		t.Fatalf("the despawn filter: op %q, sent %+v", p.op, src.subs)
	}
	p.Update(journalMsg{j: &protocol.Journal{Entries: []protocol.JournalEntry{entry(5, "add", 5), entry(6, "despawn", 6)}}})
	if rows := p.shown(); rows.len() != 1 || rows.at(0).Seq != 6 {
		t.Fatalf("filtered by op: %v", rows)
	}
	p.filter("hunt")
	if got := src.subs[len(src.subs)-1]; got.Filter != "hunt" || got.ID != subJournal {
		t.Fatalf("a system filter is the agent's: sent %+v", got)
	}
}

// f freezes the live journal and events: the rows stay as they were while
// new ones are counted; f again follows.
func TestFreezeTheLiveLists(t *testing.T) {
	c, _, _ := fixture()
	p := sized(&journalPane{common: c}, 120, 20)
	entry := func(seq uint64) protocol.JournalEntry {
		return protocol.JournalEntry{Seq: seq, Frame: seq, Op: "spawn", Entity: protocol.MakeEntityID(uint32(seq), 1), Component: -1, System: "hunt"}
	}
	p.Update(journalMsg{j: &protocol.Journal{Entries: []protocol.JournalEntry{entry(1), entry(2)}}})
	pressPane(p, "f")
	p.Update(journalMsg{j: &protocol.Journal{Entries: []protocol.JournalEntry{entry(3), entry(4), entry(5)}}})
	if rows := p.shown(); rows.len() != 2 || rows.at(0).Seq != 2 {
		t.Fatalf("frozen, the journal shows %d rows, the first %d", rows.len(), rows.at(0).Seq)
	}
	mustContain(t, p.View(), "FROZEN: 3 entries since (f follows)")
	pressPane(p, "f")
	if rows := p.shown(); rows.len() != 5 || rows.at(0).Seq != 5 {
		t.Fatalf("following again, the journal shows %d rows", rows.len())
	}
	ev := &eventsPane{common: c}
	ev.SetSize(120, 20)
	sample := func(total int) *protocol.Events {
		return &protocol.Events{Queues: []protocol.EventQueue{{Name: "Hit", Total: uint64(total)}}}
	}
	c.events = sample(10)
	ev.Update(keyMsg("f"))
	c.events = sample(99)
	ev.Update(eventsMsg{c.events})
	mustContain(t, ev.View(), "FROZEN: 1 samples since")
	if v := screenText(ev.View()); strings.Contains(v, "99") || !strings.Contains(v, "10") {
		t.Fatalf("frozen events moved:\n%s", v)
	}
	ev.Update(keyMsg("f"))
	if v := screenText(ev.View()); !strings.Contains(v, "99") {
		t.Fatalf("following again, the events did not move:\n%s", v)
	}
}
