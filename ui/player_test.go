package ui

import (
	"regexp"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ecsinspect/ecsinspect/internal/testgame"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// TestPlayerAnswersAsTheAgentWould: a recording's player opens at its last
// frame, seeks frames, ticks and keyframes, answers page and entity
// subscriptions and reads from the world rebuilt there (the same pages the
// recording's world gives), re-sends them after a seek, and refuses every
// change with a reason.
func TestPlayerAnswersAsTheAgentWould(t *testing.T) {
	p, err := openPlayer(testgame.Record(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	last := len(p.rec.Frames) - 1
	if p.idx != last || p.state == nil || p.state.Tick != p.rec.Frames[last].Tick {
		t.Fatalf("opens at frame %d (of %d)", p.idx, last)
	}
	for at := 0; at <= last; at++ {
		next := p.keyframe(at, 1)
		if next != at && (!p.rec.Frames[next].Keyframe || next < at) {
			t.Fatalf("the keyframe after %d is %d", at, next)
		}
		for i := at + 1; i < next; i++ {
			if p.rec.Frames[i].Keyframe {
				t.Fatalf("the keyframe after %d skipped %d", at, i)
			}
		}
	}
	mid := p.rec.Frames[last/2].Tick
	if err := p.seekTick(mid); err != nil || p.idx != last/2 || p.asOf != "" {
		t.Fatalf("seek to tick %d: %v, frame %d, %q", mid, err, p.idx, p.asOf)
	}
	page := func(cmd tea.Cmd) *protocol.Page {
		t.Helper()
		msg, ok := cmd().(pageMsg)
		if !ok {
			t.Fatalf("not a page: %#v", cmd())
		}
		return msg.p
	}
	got := page(p.subscribe(protocol.Subscribe{ID: 7, What: protocol.SubPage, Query: "", Limit: 5}))
	want, err := p.state.Query("", 0, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sub != 7 || got.Total != want.Total || len(got.Rows) != len(want.Rows) || got.Rows[0].Entity != want.Rows[0].Entity || got.Tick != mid {
		t.Fatalf("the page at tick %d: %+v, want %+v", mid, got, want)
	}
	if err := p.seek(last); err != nil {
		t.Fatal(err)
	}
	if resent := page(p.refresh()); resent.Tick != p.rec.Frames[last].Tick { // one subscription: one frame
		t.Fatal("a seek did not re-send the page at the new frame")
	}
	e := got.Rows[0].Entity
	d, ok := p.request("open", func(id uint32) protocol.Message { return &protocol.GetEntity{ID: id, Entity: e} })().(detailMsg)
	if !ok || d.d.Entity != e || d.d.Tick != p.state.Tick {
		t.Fatalf("GetEntity answered %#v", d)
	}
	r, ok := p.request("despawn", func(id uint32) protocol.Message { return &protocol.Despawn{ID: id, Entity: e} })().(replyMsg)
	if !ok || r.r.Code != protocol.ErrReadOnly || r.what != "despawn" {
		t.Fatalf("a change to a recording: %#v", r)
	}
	p.unsubscribe(7)
	if cmd := p.refresh(); cmd != nil {
		t.Fatalf("an unsubscribed page is still sent: %#v", cmd())
	}
}

// TestRecordedEventsShowHandles: a recording's events carry their type's
// schema, so the review's Events view shows an event's entity as 42v3,
// as live, not as the number under it.
func TestRecordedEventsShowHandles(t *testing.T) {
	p, err := openPlayer(testgame.Record(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for i := p.last(); i >= 0; i-- {
		if err := p.seek(i); err != nil {
			t.Fatal(err)
		}
		p.subscribe(protocol.Subscribe{ID: subEvents, What: protocol.SubEvents})
		ev := p.frame(subEvents).(eventsMsg).e
		for _, q := range ev.Queues {
			for _, e := range q.Recent {
				text := shortFields(e, q.Fields)
				if !regexp.MustCompile(`Who:\d+v\d+`).MatchString(text) {
					t.Fatalf("a recorded %s event shows as %s", q.Name, text)
				}
				return
			}
		}
	}
	t.Skip("no frame of the recording holds an event")
}

// TestReviewJournalFilters: in a recording, the Journal's filter keeps the
// entries of one entity, one component or one system, as the agent's does.
func TestReviewJournalFilters(t *testing.T) {
	p, err := openPlayer(testgame.Record(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	// The frame with the most journal entries, and an entity and system
	// of one of them.
	best, most := 0, 0
	for i := p.last(); i >= 0; i-- {
		if err := p.seek(i); err != nil {
			t.Fatal(err)
		}
		if n := len(p.state.Journal); n > most {
			best, most = i, n
		}
	}
	if most < 2 {
		t.Skip("the recording's journal is nearly empty")
	}
	if err := p.seek(best); err != nil {
		t.Fatal(err)
	}
	one := p.state.Journal[len(p.state.Journal)-1]
	for _, filter := range []string{one.Entity.String(), one.System} {
		p.subscribe(protocol.Subscribe{ID: subJournal, What: protocol.SubJournal, Filter: filter})
		j := p.frame(subJournal).(journalMsg).j
		if len(j.Entries) == 0 || len(j.Entries) == most && filter == one.Entity.String() {
			t.Errorf("filter %q kept %d of %d entries", filter, len(j.Entries), most)
		}
		for _, e := range j.Entries {
			if e.Entity != one.Entity && e.System != one.System {
				t.Errorf("filter %q kept %+v", filter, e)
			}
		}
	}
}
