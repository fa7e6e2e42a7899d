package inspector

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ecsinspect/ecsinspect/inspector/internal/answer"
	"github.com/ecsinspect/ecsinspect/inspector/internal/record"
	"github.com/ecsinspect/ecsinspect/protocol"
)

// World subscriptions share feeds: one capture and one encoding per rate,
// however many subscriptions ask for it. A feed is a Recorder (captured in
// Sync, encoded in order on its own goroutine, frames skipped while the
// encoder is behind, the next one holding every change since) whose frames
// go to its subscribers: each gets the same compressed body under its own
// subscription id and frame count. A subscriber starts at a keyframe, and
// one whose client lets frames pile up (past lagBytes unsent) is left out
// until a later keyframe, so a slow reader costs neither the game nor
// the agent's memory more than its own queue.

// MaxWorldFeeds bounds the rates the agent streams the world at at once:
// a world subscription at a fifth rate is refused.
const MaxWorldFeeds = 4

// MaxClientWorldStreams bounds one client's world subscriptions: each is
// the whole world's changes every frame, and more of them on one
// connection only multiply the bytes the agent writes.
const MaxClientWorldStreams = 2

// worldShare is the most of the game's time a feed's captures may take: a
// feed whose capture takes longer than this share of its period is
// captured less often (the frame after a gap holds every change since).
// A world of 100,000 changing entities takes about 1.5 ms to copy: at
// every frame of 13 ms that is 11% of the game, paced to every other
// frame.
const worldShare = 0.03

// lagBytes is what a client may have waiting to be sent and still get
// the next world frame or journal entries, a quarter of what it may have
// waiting at all (Options.MaxQueuedBytes); past it a world subscription
// waits for a keyframe, a journal one for the client to catch up.
func (a *Agent) lagBytes() int64 { return a.opts.MaxQueuedBytes / 4 }

// keyframeEvery bounds how often subscribers joining or catching up make
// a feed code a keyframe: those asking within it share the next one.
const keyframeEvery = time.Second

// pausedPeriod is the pace of a feed's frames while the game is paused
// (empty deltas with the same tick), as a summary's.
const pausedPeriod = 100 * time.Millisecond

// worldFeed is one rate's stream of WorldFrames and who listens.
type worldFeed struct {
	a      *Agent
	hz     float64 // as subscribed; 0: every frame
	rec    *record.Recorder
	subs   []*feedSub   // game goroutine
	askAt  atomic.Int64 // when a keyframe was last asked for, in Unix ns
	owed   atomic.Bool  // one was asked for within keyframeEvery of that
	paused time.Time    // the last capture while paused
	begun  bool         // its recorder took its first frame
}

// feedSub is one world subscription on a feed. Its counts belong to the
// feed's encoding goroutine; gone is set when it unsubscribes.
type feedSub struct {
	c       *peer
	id      uint32
	sent    uint64 // frames sent: the next frame's n
	started bool   // it got its keyframe
	lagging bool   // frames were left out: it waits for a keyframe
	gone    atomic.Bool
	// missed counts the coded frames left out for this listener since
	// the last it was sent, and missWhy says why (the feed's goroutine).
	missed  uint64
	missWhy string
}

// joinFeed subscribes client c's subscription id to the world at hz.
func (a *Agent) joinFeed(c *peer, id uint32, hz float64) (*feedSub, error) {
	streams := 0
	for sid, s := range c.subs {
		if s.feed != nil && sid != id {
			streams++
		}
	}
	if streams >= MaxClientWorldStreams {
		return nil, answer.Refuse(protocol.ErrTooLarge, "a client has at most %d world subscriptions: each streams every change of the world", MaxClientWorldStreams)
	}
	var f *worldFeed
	for _, x := range a.feeds {
		if x.hz == hz {
			f = x
		}
	}
	if f == nil {
		if len(a.feeds) >= MaxWorldFeeds {
			var rates []string
			for _, x := range a.feeds {
				rates = append(rates, fmt.Sprint(x.hz))
			}
			return nil, answer.Refuse(protocol.ErrTooLarge, "the agent streams the world at %d rates at most: subscribe at one of hz %v", MaxWorldFeeds, rates)
		}
		f = &worldFeed{a: a, hz: hz}
		f.rec = a.newRecorder(f, hz, a.srv.Closed())
		f.rec.Audience, f.rec.Share = f.audience, worldShare
		a.feeds = append(a.feeds, f)
	}
	s := &feedSub{c: c, id: id}
	f.subs = append(f.subs, s)
	if len(f.subs) == 1 { // a new feed: its first frame, a keyframe, goes to this subscriber
		f.askAt.Store(time.Now().UnixNano())
		return s, nil
	}
	f.askKeyframe()
	return s, nil
}

// leaveFeed ends a world subscription; a feed nobody listens to ends.
func (a *Agent) leaveFeed(s *feedSub) {
	s.gone.Store(true)
	for i, f := range a.feeds {
		f.subs = slices.DeleteFunc(f.subs, func(x *feedSub) bool { return x == s })
		if len(f.subs) == 0 {
			f.rec.End("")
			a.feeds = slices.Delete(a.feeds, i, i+1)
			return
		}
	}
}

// captureFeeds is the feeds' turn in Sync; paused, at pausedPeriod.
func (a *Agent) captureFeeds(now time.Time, paused bool) {
	for _, f := range a.feeds {
		if !f.begun { // after the subscription's reply: the frames follow it
			f.begun = true
			f.rec.Begin()
			continue
		}
		f.settleKeyframe(now)
		if paused {
			if now.Sub(f.paused) < pausedPeriod {
				continue
			}
			f.paused = now
		}
		f.rec.Share, f.rec.EncodeShare = f.a.feedShares()
		f.rec.Capture(now)
	}
}

// feedShares is what a world feed's captures may take of the game's time,
// and its coding of a core. Captures run on the game goroutine: they take
// worldShare at least and, for a game that waits between frames (paced at
// 60 Hz, say), most of the time it waits (a paced game then waits less,
// and keeps its pace). Coding runs on a goroutine of its
// own that the game never waits for: with more than one core it may take
// one (the frames of a 100,000-entity world at 60 Hz take about that);
// on one core, the time the game waits.
func (a *Agent) feedShares() (capture, encode float64) {
	idle := 0.0
	if a.frameNs > 0 && a.workNs > 0 && a.workNs < a.frameNs {
		idle = float64(a.frameNs-a.workNs) / float64(a.frameNs)
	}
	encode = idle
	if runtime.NumCPU() > 1 {
		encode = 1
	}
	return max(worldShare, idle*0.9), encode
}

// audience is who listens when a frame is captured (the game goroutine).
func (f *worldFeed) audience() any { return slices.Clone(f.subs) }

// askKeyframe has the feed code a keyframe soon: now, or, within
// keyframeEvery of the last one asked for, once that time has passed
// (owed, settled in captureFeeds): any number of asks in the window
// share one keyframe.
func (f *worldFeed) askKeyframe() {
	now := time.Now().UnixNano()
	last := f.askAt.Load()
	if last != 0 && now-last < int64(keyframeEvery) {
		f.owed.Store(true)
		return
	}
	if f.askAt.CompareAndSwap(last, now) {
		f.rec.Keyframe()
	}
}

// settleKeyframe asks for the keyframe owed, once its time has come.
func (f *worldFeed) settleKeyframe(now time.Time) {
	if f.owed.Load() && now.UnixNano()-f.askAt.Load() >= int64(keyframeEvery) {
		f.owed.Store(false)
		f.askKeyframe()
	}
}

// fanOut sends a coded frame to those who listened when it was captured,
// on the feed's encoding goroutine.
func (f *worldFeed) FanOut(fr *protocol.WorldFrame, audience any) {
	to, _ := audience.([]*feedSub)
	for _, s := range to {
		if s.gone.Load() {
			continue
		}
		backlog := s.c.Backlog()
		switch {
		case !s.started && !fr.Full:
			continue // waits for its first keyframe
		case s.lagging && !(fr.Full && backlog < f.a.lagBytes()/2):
			s.missed += 1 + fr.Skipped
			if backlog < f.a.lagBytes()/2 { // caught up: it needs a keyframe, not the next natural one
				f.askKeyframe()
			}
			continue
		case backlog > f.a.lagBytes():
			s.lagging = true
			s.missed, s.missWhy = s.missed+1+fr.Skipped, "the client read too slowly: frames were left out until a keyframe"
			f.askKeyframe()
			continue
		}
		if len(fr.Body)+64 > s.c.MaxWrite() {
			s.missed, s.missWhy = s.missed+1+fr.Skipped, "a frame was over the client's frame limit"
			s.c.Notify(&protocol.Reply{ID: s.id, Code: protocol.ErrTooLarge,
				Message: fmt.Sprintf("a world frame is %s, over this client's frame limit of %s: the subscription waits for a smaller keyframe", protocol.ByteSize(len(fr.Body)), protocol.ByteSize(s.c.MaxWrite()))})
			s.lagging = true
			continue
		}
		s.started, s.lagging = true, false
		wf := &protocol.WorldFrame{Sub: s.id, Tick: fr.Tick, Full: fr.Full, Seq: s.sent, Body: fr.Body, Skipped: fr.Skipped + s.missed, SkipWhy: fr.SkipWhy}
		if s.missed > 0 {
			wf.SkipWhy = strings.TrimPrefix(fr.SkipWhy+"; "+s.missWhy, "; ")
		}
		if f.hz > 0 { // a stream at a rate leaves frames out by design
			wf.Skipped, wf.SkipWhy = 0, ""
		}
		s.missed, s.missWhy = 0, ""
		s.c.Notify(wf)
		s.sent++
	}
}

// The feed is its recorder's sink (a record.FanOutSink): frames go to
// FanOut, nothing to a file.
func (f *worldFeed) WriteWorld(*protocol.WorldFrame) error { return nil }
func (f *worldFeed) Flush() error                          { return nil }
func (f *worldFeed) Close() error                          { return nil }
func (f *worldFeed) Bytes() int64                          { return 0 }
