package inspector

import (
	"fmt"
	"time"

	"github.com/ecsinspect/ecsinspect/ecs"
	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/budget"
	"github.com/ecsinspect/ecsinspect/inspector/internal/live"
	"github.com/ecsinspect/ecsinspect/inspector/internal/values"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// Subscriptions: a client's standing requests, and the capture loop that
// takes each one's frame when it is due, on the game goroutine.

// subscription is one client's standing request, owned by the game goroutine.
type subscription struct {
	req     protocol.Subscribe
	period  time.Duration
	next    time.Time
	reset   bool // the next frame goes out full
	query   *live.Query
	since   uint32   // change stamp of the previous capture
	journal uint64   // last journal entry sent
	feed    *feedSub // a world subscription's place on its feed
	series  *seriesQuery
	points  *pointsQuery
}

// heavy reports whether the subscription's frames copy many rows (or a
// resource's children): they share the Sync's capture budget.
func (s *subscription) heavy() bool {
	switch s.req.What {
	case protocol.SubPage, protocol.SubResource:
		return true
	case protocol.SubSeries:
		return s.series.spec.Aggregate != ""
	case protocol.SubPoints:
		return true
	}
	return false
}

func (a *Agent) subscribe(c *peer, m *protocol.Subscribe) error {
	hz := m.Hz // finite and >= 0: checked at the door
	if hz <= 0 {
		hz = a.opts.DefaultHz
	}
	hz = min(hz, a.opts.MaxHz)
	s := &subscription{req: *m, period: time.Duration(float64(time.Second) / hz), reset: true, since: a.w.Inspect().NextStamp()}
	switch m.What {
	case protocol.SubWorld:
		rate := 0.0 // every frame the agent sees
		if m.Hz > 0 {
			rate = hz
		}
		feed, err := a.joinFeed(c, m.ID, rate)
		if err != nil {
			return err
		}
		s.feed = feed
	case protocol.SubSummary, protocol.SubEvents:
	case protocol.SubJournal:
		if other := sameStream(c, m); other != 0 {
			return answer.Refuse(protocol.ErrBadValue, "this client follows the journal with the filter %q already, as subscription %d: a second would carry the same entries", m.Filter, other)
		}
		if old, ok := c.subs[m.ID]; ok {
			s.journal = old.journal
		}
	case protocol.SubEntity:
		if m.Entity == 0 {
			return fmt.Errorf("an entity subscription needs an entity")
		}
	case protocol.SubPage:
		if m.Archetype == 0 {
			q, err := a.lw.Compile(m.Query, m.Sort, 0)
			if err != nil {
				return err
			}
			if q.Evaluates() {
				if err := a.lw.CheckCopy(q); err != nil {
					return err
				}
			}
			s.query = q
		}
	case protocol.SubResource:
		if _, err := a.resource(m.Resource); err != nil {
			return err
		}
	case protocol.SubSeries:
		if other := sameStream(c, m); other != 0 {
			return answer.Refuse(protocol.ErrBadValue, "this client follows the series %q already, as subscription %d: a second would carry the same samples", m.Query, other)
		}
		sq, err := a.compileSeries(m.Query)
		if err != nil {
			return err
		}
		s.series = sq
	case protocol.SubPoints:
		pq, err := a.compilePoints(m)
		if err != nil {
			return err
		}
		s.points = pq
	default:
		return fmt.Errorf("cannot subscribe to %q: want summary, page, entity, events, journal, world, series, points or resource", m.What)
	}
	a.unsubscribe(c, m.ID)
	c.subs[m.ID] = s
	return nil
}

// The bytes of journal frames one client may be sent a second, and at
// once: a client following the journal through many subscriptions, or
// through filters that each keep most of it, cannot make the game's
// machine send more than this for it (its entries wait in the world's
// journal, a ring, and older ones are lost, as the gap in seq says).
const (
	journalRate  = 4 << 20
	journalBurst = 4 << 20
)

// journalAllows refills the client's journal room and reports whether
// there is any.
func (c *peer) journalAllows(now time.Time) bool {
	if c.roomAt.IsZero() {
		c.journalRoom = journalBurst
	} else {
		c.journalRoom = min(journalBurst, c.journalRoom+now.Sub(c.roomAt).Seconds()*journalRate)
	}
	c.roomAt = now
	return c.journalRoom > 0
}

// sameStream is the id of another subscription of c's that would send
// what m asks for (a journal with the same filter, a series of the same
// expression), or 0: a client gains nothing from two, and every copy is
// bytes the game's machine sends.
func sameStream(c *peer, m *protocol.Subscribe) uint32 {
	for id, s := range c.subs {
		if id != m.ID && s.req.What == m.What && s.req.Filter == m.Filter && s.req.Query == m.Query {
			return id
		}
	}
	return 0
}

// unsubscribe ends client c's subscription id, if it has one.
func (a *Agent) unsubscribe(c *peer, id uint32) {
	if old, ok := c.subs[id]; ok && old.feed != nil {
		a.leaveFeed(old.feed)
	}
	delete(c.subs, id)
}

// The time one Sync spends building subscription frames for all clients
// together: captureShare of the game's own work in the last frame, at
// least captureFloor and at most captureCeiling. Each client has an equal
// share of it and at least one frame a Sync; subscriptions past its share
// stay due and go next frame, so clients with many subscriptions can
// neither hold the game nor starve each other, and a busy game's frame
// grows by a twentieth at most for them.
const (
	captureShare   = 0.05
	captureFloor   = 250 * time.Microsecond
	captureCeiling = budget.PerFrame
)

// captureBudget is this Sync's time for subscription frames.
func (a *Agent) captureBudget() time.Duration {
	return min(captureCeiling, max(captureFloor, time.Duration(captureShare*float64(a.workNs))))
}

// capture sends a frame to every subscription that is due, within the
// budget.
func (a *Agent) capture(now time.Time) {
	var summary *protocol.Summary                   // built once per Sync, shared by readers
	journals := map[uint64]*protocol.JournalBatch{} // entries after a sequence number, converted once per Sync
	start := time.Now()
	budget := a.captureBudget()
	share := budget / time.Duration(max(len(a.live), 1))
	for _, c := range a.live { // a map: the clients come in another order each Sync
		mine, built := time.Now(), 0
		for id, s := range c.subs {
			if now.Before(s.next) || s.feed != nil { // world subscriptions: their feeds send
				continue
			}
			if built > 0 && time.Since(mine) > share {
				break // due still: next Sync
			}
			if s.heavy() && (time.Since(start) > budget || c.BusyHeavy()) {
				continue // due still: next Sync
			}
			if !s.reset && c.Pending(id) {
				// The client has not taken the last frame: skip the copy
				// that would only replace it.
				s.next = now.Add(s.period)
				a.srv.CountCoalesced()
				continue
			}
			s.next = now.Add(s.period)
			if s.next.Before(now) {
				s.next = now
			}
			var m protocol.Message
			var f answer.Frame
			switch s.req.What {
			case protocol.SubSummary:
				if summary == nil {
					summary = a.summary()
				}
				sum := *summary
				sum.Sub = id
				m = &sum
			case protocol.SubPage:
				f = a.subscribedPage(id, s)
			case protocol.SubEntity:
				m = a.detail(id, values.Entity(s.req.Entity), s.req.Offset)
			case protocol.SubSeries:
				f = a.seriesFrame(id, s)
			case protocol.SubPoints:
				f = a.pointsFrame(id, s)
			case protocol.SubResource:
				f = a.resourceFrame(id, s)
			case protocol.SubEvents:
				m = a.events(id, s.req.Sample)
			case protocol.SubJournal:
				if c.Backlog() > a.lagBytes() {
					// A slow reader: its entries wait in the world's
					// journal (a ring) and go once it has taken what
					// waits; older ones than the ring holds are lost, as
					// the gap in seq says.
					continue
				}
				// Journal entries arrive in order, never coalesced; the
				// whole journal is encoded once for every subscription
				// that sends it, a filtered one is filtered by the writer.
				// A client's journals share journalRate bytes a second:
				// past it, entries wait in the ring.
				if !c.journalAllows(now) {
					continue
				}
				batch, first := a.journalBatch(s, journals), s.reset
				size := answer.EstimateSize(&protocol.Journal{Entries: batch.Entries}) // a filtered one's, at most
				c.journalRoom -= float64(size)
				built++
				s.reset = false
				if s.req.Filter != "" {
					tick, f := a.tick(), a.journalFilter(s.req.Filter)
					c.NotifyBuild(size, func() protocol.Message { return filtered(id, tick, batch, f, first) })
					continue
				}
				if len(batch.Entries) == 0 && !first {
					continue
				}
				j := &protocol.Journal{Sub: id, Tick: a.tick()}
				j.Share(batch)
				c.Notify(j)
				continue
			}
			if m != nil {
				f = answer.Frame{Msg: m, Size: answer.EstimateSize(m)}
			}
			f.Reset = s.reset
			c.Frame(id, f)
			s.reset = false
			built++
		}
	}
}

// nextDue is how long until a subscription is due, for a paused Sync.
func (a *Agent) nextDue(now time.Time) time.Duration {
	wait := time.Second
	if len(a.feeds) > 0 {
		wait = pausedPeriod
	}
	for _, c := range a.live {
		for _, s := range c.subs {
			if s.feed == nil {
				wait = min(wait, s.next.Sub(now))
			}
		}
	}
	return max(wait, time.Millisecond)
}

// resourceFrame captures a resource subscription's page, or says why it
// cannot (the resource was removed, the path no longer leads anywhere)
// where the client looks for the answer.
func (a *Agent) resourceFrame(id uint32, s *subscription) answer.Frame {
	f, err := a.resourcePage(id, s.req.Resource, s.req.Path, s.req.Offset, s.req.Limit)
	if err != nil {
		return answer.Frame{Msg: &protocol.Reply{ID: id, Code: codeOf(err), Message: err.Error()}, Size: 512}
	}
	return f
}

// subscribedPage captures a page subscription's window: the copy now, the
// conversion (and, for a query with many field tests, the tests) on the
// client's writer goroutine.
func (a *Agent) subscribedPage(id uint32, s *subscription) answer.Frame {
	limit := protocol.PageLimit(s.req.Limit)
	if s.req.Archetype > 0 {
		arch := uint32(s.req.Archetype - 1)
		ents, total := a.w.Inspect().ArchetypeEntities(arch, s.req.Offset, limit)
		var cols []ecs.ComponentID
		for _, ar := range a.w.Inspect().Archetypes() {
			if ar.ID == arch {
				cols = ar.Components
			}
		}
		pc := a.lw.Capture(id, ents, total, s.req.Offset, cols, a.w.Inspect().CopyRows(ents, cols))
		return answer.Frame{Build: func() protocol.Message { return pc.Build() }, Size: pc.Size()}
	}
	s.query.Filter.Since = s.since
	defer func() { s.since = a.w.Inspect().NextStamp() }()
	f, err := a.lw.Page(id, s.query, s.req.Offset, limit)
	if err != nil {
		// The world grew past what the query may copy since it was
		// subscribed: say so where the client looks for the answer.
		return answer.Frame{Msg: &protocol.Reply{ID: id, Code: codeOf(err), Message: err.Error()}, Size: 256}
	}
	return f
}
