package fleet

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// Presence keeps an instance known on the broker: it publishes the
// instance's Status on AnnounceSubject every so often, answers discover and
// ping requests with it, and announces the instance gone when stopped.
// status is called on Presence's goroutines: it must not touch the game's
// world (the agent hands it a copy taken in Sync).
type Presence struct {
	nc     *nats.Conn
	prefix string
	every  time.Duration
	status func() Status
	subs   []*nats.Subscription
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once

	bucket    float64 // replies to requests allowed now (replyRate a second, replyBurst at most)
	refilled  time.Time
	bucketMu  sync.Mutex
	Throttled atomic.Uint64 // requests left unanswered: more than replyRate a second came
}

// Request replies an instance sends at most, a second (discover and ping
// together), so a flood of requests costs it little.
const (
	replyRate  = 20
	replyBurst = 40
)

// Present starts announcing status under prefix every every (2 s if 0).
func Present(nc *nats.Conn, prefix string, every time.Duration, status func() Status) (*Presence, error) {
	if every <= 0 {
		every = 2 * time.Second
	}
	p := &Presence{nc: nc, prefix: prefix, every: every, status: status, stop: make(chan struct{}), done: make(chan struct{}), bucket: replyBurst, refilled: time.Now()}
	for _, subj := range []string{DiscoverSubject(prefix), PingSubject(prefix, status().Instance)} {
		sub, err := nc.Subscribe(subj, p.answer)
		if err != nil {
			p.unsubscribe()
			return nil, err
		}
		if err := sub.SetPendingLimits(256, 1<<20); err != nil { // a flood is dropped, not queued
			p.unsubscribe()
			return nil, err
		}
		p.subs = append(p.subs, sub)
	}
	Flush(nc) // answers from now on (a broker not reached yet gets the subscriptions when it is)
	go p.run()
	return p, nil
}

// Every is the time between announcements.
func (p *Presence) Every() time.Duration { return p.every }

func (p *Presence) run() {
	defer close(p.done)
	t := time.NewTicker(p.every)
	defer t.Stop()
	p.publish(AnnounceSubject(p.prefix), false)
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.publish(AnnounceSubject(p.prefix), false)
		}
	}
}

// answer replies to a discover or ping request, within the reply rate.
func (p *Presence) answer(m *nats.Msg) {
	if m.Reply == "" {
		return
	}
	p.bucketMu.Lock()
	now := time.Now()
	p.bucket = min(replyBurst, p.bucket+now.Sub(p.refilled).Seconds()*replyRate)
	p.refilled = now
	ok := p.bucket >= 1
	if ok {
		p.bucket--
	}
	p.bucketMu.Unlock()
	if !ok {
		p.Throttled.Add(1)
		return
	}
	p.publish(m.Reply, false)
}

func (p *Presence) publish(subject string, gone bool) {
	s := p.status()
	s.At, s.Every, s.Gone = time.Now().UnixMilli(), p.every.Seconds(), gone
	b, err := EncodeStatus(s)
	if err != nil {
		return
	}
	_ = p.nc.Publish(subject, b) // a broker that is down: the next one goes when it is back
}

func (p *Presence) unsubscribe() {
	for _, s := range p.subs {
		_ = s.Unsubscribe()
	}
}

// Stop announces the instance gone and stops.
func (p *Presence) Stop() {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.unsubscribe()
		p.publish(AnnounceSubject(p.prefix), true)
		Flush(p.nc)
	})
}
